import type { z } from 'zod';
import type { Document, Filter } from 'mongodb';
import type { Resource } from '../../common/platform/resource';
import type { Catalogi } from './context';
import { registerOnderdeel } from './onderdelen';
import { in133 } from './expand';
import { distinct, urlsOn, urlsWhere } from './relations';
import { BRONDATUM_LEEG, resultaattypeRules } from './resultaattypen';
import {
  ChildQuery,
  Eigenschap,
  EigenschapInput,
  ResultaatType,
  ResultaatType133,
  ResultaatTypeInput,
  ResultaatTypeQuery,
  RolType,
  RolTypeInput,
  RolTypeQuery,
  StatusType,
  StatusType133,
  StatusTypeInput,
  ZaakObjectType,
  ZaakObjectType133,
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
  const statustypen: Resource<StatusTypeDoc> = registerOnderdeel<StatusTypeDoc, z.output<typeof ChildQuery>>(c, {
    collection: 'statustypen',
    resource: 'statustype',
    schema: StatusType,
    input: StatusTypeInput,
    query: ChildQuery,
    in133: { name: 'StatusType', schema: StatusType133 },
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
    // 1.3.1 also shows the zaakobjecttype that names the statustype.
    render: async (doc, url, _query, req) => {
      const [last] = await statustypen.store.find({ zaaktype: doc.zaaktype }, { sort: { volgnummer: -1 }, limit: 1 });
      const isEindstatus = last ? last._id === doc._id : false;
      if (in133(c, req)) return { isEindstatus };
      const [zaakobjecttype] = await urlsWhere(zaakobjecttypen, { statustypen: url });
      return { isEindstatus, zaakobjecttype: zaakobjecttype ?? '' };
    },
  });

  const roltypen = registerOnderdeel<RolTypeDoc, z.output<typeof RolTypeQuery>>(c, {
    collection: 'roltypen',
    resource: 'roltype',
    schema: RolType,
    input: RolTypeInput,
    query: RolTypeQuery,
    in133: { name: 'RolType' },
    defaults: GELDIGHEID,
    filter: (q) => (q.omschrijvingGeneriek ? { omschrijvingGeneriek: q.omschrijvingGeneriek } : {}),
  });

  const eigenschappen = registerOnderdeel<EigenschapDoc, z.output<typeof ChildQuery>>(c, {
    collection: 'eigenschappen',
    resource: 'eigenschap',
    schema: Eigenschap,
    input: EigenschapInput,
    query: ChildQuery,
    in133: { name: 'Eigenschap' },
    defaults: { toelichting: '', statustype: null, ...GELDIGHEID },
    links: [{ field: 'statustype', target: 'statustypen' }],
    rules: async (doc) => ({ ...doc, specificatie: { groep: '', waardenverzameling: [], ...doc.specificatie } }),
  });

  const resultaattypen = registerOnderdeel<ResultaatTypeDoc, z.output<typeof ResultaatTypeQuery>>(c, {
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
    // 1.3.3 takes a resultaattype without besluittypen and has both spellings of the filters.
    in133: { name: 'ResultaatType', schema: ResultaatType133, input: ResultaatTypeInput },
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
    render: async (doc, url, query, req) => {
      const datum = (query?.datumGeldigheid ?? query?.datum_geldigheid) as string | undefined;
      const iots = await Promise.all((doc.informatieobjecttypen ?? []).map((u) => c.informatieobjecttypen.byUrl(u)));
      return {
        brondatumArchiefprocedure: doc.brondatumArchiefprocedure ?? BRONDATUM_LEEG,
        besluittypen: await urlsOn(c.besluittypen, 'omschrijving', doc.catalogus, doc.besluittypen, datum),
        besluittypeOmschrijving: doc.besluittypen ?? [],
        informatieobjecttypeOmschrijving: iots.filter((d) => !!d).map((d) => d.omschrijving),
        ...(!in133(c, req) && { zaakobjecttypen: await urlsWhere(zaakobjecttypen, { resultaattypen: url }) }),
      };
    },
  });

  const zaakobjecttypen: Resource<ZaakObjectTypeDoc> = registerOnderdeel<ZaakObjectTypeDoc, z.output<typeof ZaakObjectTypeQuery>>(c, {
    collection: 'zaakobjecttypen',
    resource: 'zaakobjecttype',
    schema: ZaakObjectType,
    input: ZaakObjectTypeInput,
    query: ZaakObjectTypeQuery,
    // 1.3.3 creates one without a beginGeldigheid (then the zaaktype's), and has its resultaattypen and statustypen
    // read-only (the server still takes them).
    in133: {
      name: 'ZaakObjectType',
      schema: ZaakObjectType133,
      input: ZaakObjectTypeInput.partial({ beginGeldigheid: true }),
      declared: { input: ZaakObjectTypeInput.omit({ resultaattypen: true, statustypen: true }).partial({ beginGeldigheid: true }) },
    },
    // 1.3.3 names its resultaattypen beside their URLs.
    render: async (doc, _url, _query, req) => {
      if (!in133(c, req)) return {};
      // one query for all of them, their names in the order of the URLs
      const ids = (doc.resultaattypen ?? []).map((u) => c.resultaattypen.uuidOf(u)).filter((id): id is string => !!id);
      const found = ids.length ? await c.resultaattypen.store.find({ _id: { $in: ids } }, { sort: { _id: 1 } }) : [];
      const naam = new Map(found.map((r) => [r._id, r.omschrijving]));
      return { resultaattypeOmschrijving: distinct(ids.map((id) => naam.get(id))) };
    },
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
