import type { Document, Filter } from 'mongodb';
import type { Resource } from '../../common/resource';
import type { Catalogi } from './context';
import { registerOnderdeel } from './onderdelen';
import { urlsOn, urlsWhere } from './relations';
import { BRONDATUM_LEEG, resultaattypeRules } from './resultaattypen';
import {
  ChildQuery,
  Eigenschap,
  EigenschapInput,
  ResultaatType,
  ResultaatTypeInput,
  ResultaatTypeQuery,
  RolType,
  RolTypeInput,
  RolTypeQuery,
  StatusType,
  StatusTypeInput,
  ZaakObjectType,
  ZaakObjectTypeInput,
  ZaakObjectTypeQuery,
  type EigenschapDoc,
  type ResultaatTypeDoc,
  type RolTypeDoc,
  type StatusTypeDoc,
  type ZaakObjectTypeDoc,
} from './schemas';

const GELDIGHEID = { beginGeldigheid: null, eindeGeldigheid: null, beginObject: null, eindeObject: null };

/** statustypen, roltypen, eigenschappen, resultaattypen and zaakobjecttypen. */
export function registerOnderdelen(c: Catalogi): Pick<Catalogi, 'statustypen' | 'roltypen' | 'eigenschappen' | 'resultaattypen' | 'zaakobjecttypen'> {
  const statustypen: Resource<StatusTypeDoc> = registerOnderdeel<StatusTypeDoc>(c, {
    collection: 'statustypen',
    resource: 'statustype',
    schema: StatusType,
    input: StatusTypeInput,
    query: ChildQuery,
    defaults: {
      omschrijvingGeneriek: '',
      statustekst: '',
      informeren: false,
      doorlooptijd: null,
      toelichting: null,
      checklistitemStatustype: [],
      eigenschappen: [],
      ...GELDIGHEID,
    },
    links: [{ field: 'eigenschappen', target: 'eigenschappen' }],
    // The eindstatus is the statustype with the highest volgnummer of its zaaktype.
    render: async (doc, url) => {
      const [last] = await statustypen.store.find({ zaaktype: doc.zaaktype }, { sort: { volgnummer: -1 }, limit: 1 });
      const [zaakobjecttype] = await urlsWhere(zaakobjecttypen, { statustypen: url });
      return { isEindstatus: last ? last._id === doc._id : false, zaakobjecttype: zaakobjecttype ?? '' };
    },
  });

  const roltypen = registerOnderdeel<RolTypeDoc>(c, {
    collection: 'roltypen',
    resource: 'roltype',
    schema: RolType,
    input: RolTypeInput,
    query: RolTypeQuery,
    defaults: GELDIGHEID,
    filter: (q) => (q.omschrijvingGeneriek ? { omschrijvingGeneriek: q.omschrijvingGeneriek } : {}),
  });

  const eigenschappen = registerOnderdeel<EigenschapDoc>(c, {
    collection: 'eigenschappen',
    resource: 'eigenschap',
    schema: Eigenschap,
    input: EigenschapInput,
    query: ChildQuery,
    defaults: { toelichting: '', statustype: null, ...GELDIGHEID },
    links: [{ field: 'statustype', target: 'statustypen' }],
    rules: async (doc) => ({ ...doc, specificatie: { groep: '', waardenverzameling: [], ...doc.specificatie } }),
  });

  const resultaattypen = registerOnderdeel<ResultaatTypeDoc>(c, {
    collection: 'resultaattypen',
    resource: 'resultaattype',
    schema: ResultaatType,
    input: ResultaatTypeInput,
    query: ResultaatTypeQuery,
    // Catalogi 1.3.1 requires besluittypen and knows the filters zaaktypeIdentificatie and datumGeldigheid only in
    // their snake_case spelling; the server takes both, and a resultaattype without besluittypen.
    declared: {
      input: ResultaatTypeInput.required({ besluittypen: true }),
      query: ResultaatTypeQuery.omit({ zaaktypeIdentificatie: true, datumGeldigheid: true }),
    },
    defaults: {
      toelichting: '',
      archiefnominatie: '',
      archiefactietermijn: null,
      brondatumArchiefprocedure: undefined,
      procesobjectaard: null,
      indicatieSpecifiek: null,
      procestermijn: null,
      besluittypen: [],
      informatieobjecttypen: [],
      ...GELDIGHEID,
    },
    links: [{ field: 'informatieobjecttypen', target: 'informatieobjecttypen' }],
    rules: (doc, zaaktype, current) => resultaattypeRules(c, doc, zaaktype, current),
    render: async (doc, url, query) => {
      const datum = (query?.datumGeldigheid ?? query?.datum_geldigheid) as string | undefined;
      const iots = await Promise.all((doc.informatieobjecttypen ?? []).map((u) => c.informatieobjecttypen.byUrl(u)));
      return {
        brondatumArchiefprocedure: doc.brondatumArchiefprocedure ?? BRONDATUM_LEEG,
        besluittypen: await urlsOn(c.besluittypen, 'omschrijving', doc.catalogus, doc.besluittypen, datum),
        besluittypeOmschrijving: doc.besluittypen ?? [],
        informatieobjecttypeOmschrijving: iots.filter((d) => !!d).map((d) => d.omschrijving),
        zaakobjecttypen: await urlsWhere(zaakobjecttypen, { resultaattypen: url }),
      };
    },
  });

  const zaakobjecttypen: Resource<ZaakObjectTypeDoc> = registerOnderdeel<ZaakObjectTypeDoc>(c, {
    collection: 'zaakobjecttypen',
    resource: 'zaakobjecttype',
    schema: ZaakObjectType,
    input: ZaakObjectTypeInput,
    query: ZaakObjectTypeQuery,
    defaults: { eindeGeldigheid: null, beginObject: null, eindeObject: null, resultaattypen: [], statustypen: [] },
    catalogusFromZaaktype: false,
    links: [
      { field: 'statustypen', target: 'statustypen' },
      { field: 'resultaattypen', target: 'resultaattypen' },
    ],
    status: false,
    filter: (q) => {
      const f: Filter<Document> = {};
      if (q.anderObjecttype) f.anderObjecttype = ['true', 'True', '1'].includes(String(q.anderObjecttype));
      if (q.catalogus) f.catalogus = q.catalogus;
      if (q.datumBeginGeldigheid) f.beginGeldigheid = q.datumBeginGeldigheid;
      if (q.datumEindeGeldigheid) f.eindeGeldigheid = q.datumEindeGeldigheid;
      if (q.objecttype) f.objecttype = q.objecttype;
      if (q.relatieOmschrijving) f.relatieOmschrijving = q.relatieOmschrijving;
      return f;
    },
  });
  return { statustypen, roltypen, eigenschappen, resultaattypen, zaakobjecttypen };
}
