import type { z } from 'zod';
import { ZgwError } from '../../common/http/errors';
import type { Resource } from '../../common/platform/resource';
import { AANMAKEN, BIJWERKEN, READ, VERWIJDEREN, type Documenten } from './context';
import { registerPart } from './parts';
import { V15, Verzending, VerzendingExpanded17, VerzendingInput, VerzendingQuery, type VerzendingDoc } from './schemas';

/**
 * Verzendingen: to whom a document was sent or from whom it was received, and how (a paginated list). In 1.5.0 an
 * outgoing document (aardRelatie `geadresseerde`) needs its verzenddatum; from 1.6.0 on it is optional.
 */
export function registerVerzendingen(d: Documenten): Resource<VerzendingDoc> {
  return registerPart<VerzendingDoc, z.output<typeof VerzendingQuery>>(d, {
    collection: 'verzendingen',
    resource: 'verzending',
    schema: Verzending,
    expanded17: VerzendingExpanded17,
    input: VerzendingInput,
    query: VerzendingQuery,
    scopes: { read: READ, create: [AANMAKEN], update: [BIJWERKEN], destroy: [VERWIJDEREN] },
    operations: ['list', 'create', 'read', 'update', 'partial_update', 'destroy'],
    auditHeaders: [],
    exact: ['aardRelatie', 'betrokkene'],
    rules: async (doc, _eio, ctx) => {
      if (ctx.version === V15 && doc.aardRelatie === 'geadresseerde' && !doc.verzenddatum) {
        throw ZgwError.field(
          'verzenddatum',
          'required',
          "De verzenddatum is verplicht als aardRelatie 'geadresseerde' is (Documenten API 1.5; vanaf 1.6 optioneel).",
        );
      }
      return doc;
    },
    defaults: {
      toelichting: '',
      ontvangstdatum: null,
      verzenddatum: null,
      contactpersoonnaam: '',
      binnenlandsCorrespondentieadres: null,
      buitenlandsCorrespondentieadres: null,
      correspondentiePostadres: null,
      faxnummer: null,
      emailadres: null,
      mijnOverheid: false,
      telefoonnummer: null,
    },
  });
}
