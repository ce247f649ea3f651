import type { Resource } from '../../common/resource';
import { AANMAKEN, BIJWERKEN, READ, VERWIJDEREN, type Documenten } from './context';
import { registerPart } from './parts';
import { Verzending, VerzendingInput, VerzendingQuery, type Doc } from './schemas';

/** Verzendingen: to whom a document was sent or from whom it was received, and how (a paginated list). */
export function registerVerzendingen(d: Documenten): Resource<Doc> {
  return registerPart(d, {
    collection: 'verzendingen',
    resource: 'verzending',
    schema: Verzending,
    input: VerzendingInput,
    query: VerzendingQuery,
    scopes: { read: READ, create: [AANMAKEN], update: [BIJWERKEN], destroy: [VERWIJDEREN] },
    operations: ['list', 'create', 'read', 'update', 'partial_update', 'destroy'],
    exact: ['aardRelatie', 'betrokkene'],
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
