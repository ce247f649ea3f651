import type { Document, Filter } from 'mongodb';
import { z } from 'zod';
import { ZgwError, type InvalidParam } from '../../common/http/errors';
import { Resource, type WriteContext } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import {
  DELETE_OR_FORCED,
  READ,
  WRITE,
  WRITE_OR_FORCED,
  ZAAKTYPE_ONDERDELEN,
  and,
  geldigOp,
  isUrl,
  mayForceDelete,
  mayForceWrite,
  mustResolve,
  nonField,
  onlyEndsGeldigheid,
  statusFilter,
  withDefaults,
  type Catalogi,
} from './context';
import { in133, served133 } from './expand';
import { GroupLoader, byNames, distinct, namesFromInput, urlsOn, vandaag, versionsOn } from './relations';
import {
  ZaakType,
  ZaakType133,
  ZaakTypeInput,
  ZaakTypeInput133,
  ZaakTypeQuery,
  date,
  type BesluitTypeDoc,
  type InformatieObjectTypeDoc,
  type ZaakTypeDoc,
  type ZaakTypeIn,
} from './schemas';

const ZAAKTYPE_READ = [...READ, 'documenten.lezen', 'zaken.lezen'];
/** `datumGeldigheid` on the detail GET applies to the zaaktype itself and to everything it shows. */
const ZaakTypeReadQuery = z.object({ datumGeldigheid: date.optional() });
type ZaakTypeFilters = z.output<typeof ZaakTypeQuery>;
type ZaakTypeDetail = z.output<typeof ZaakTypeReadQuery>;

const DEFAULTS = {
  omschrijvingGeneriek: '',
  toelichting: '',
  servicenorm: null,
  verlengingstermijn: null,
  trefwoorden: [],
  publicatietekst: '',
  verantwoordingsrelatie: [],
  selectielijstProcestype: '',
  broncatalogus: null,
  bronzaaktype: null,
  deelzaaktypen: [],
  eindeGeldigheid: null,
  beginObject: null,
  eindeObject: null,
} satisfies Partial<ZaakTypeDoc>;

/** The besluittypen a zaaktype refers to (by omschrijving), every version in its catalogus. */
export function besluittypenOf(c: Catalogi, zaaktype: ZaakTypeDoc): Promise<Stored<BesluitTypeDoc>[]> {
  return byNames(c.besluittypen, 'omschrijving', zaaktype.catalogus, zaaktype.besluittypen);
}

/** The informatieobjecttypen a zaaktype is linked to through zaaktype-informatieobjecttypen. */
export async function informatieobjecttypenOf(c: Catalogi, zaaktypeUrl: string): Promise<Stored<InformatieObjectTypeDoc>[]> {
  const links = await c.ziot.store.find({ zaaktype: zaaktypeUrl });
  const out: Stored<InformatieObjectTypeDoc>[] = [];
  for (const link of links) {
    const doc = await c.informatieobjecttypen.byUrl(link.informatieobjecttype);
    if (doc) out.push(doc);
  }
  return out;
}

/**
 * The informatieobjecttypen of a zaaktype on `datum`: for each of its zaaktype-informatieobjecttypen, the version of
 * the omschrijving it names that is valid that day (see versionOn). Zaken asks with a zaak's startdatum.
 */
export async function informatieobjecttypenOn(c: Catalogi, zaaktypeUrl: string, datum: string): Promise<string[]> {
  const links = await c.ziot.store.find({ zaaktype: zaaktypeUrl });
  return urlsOn(
    c.informatieobjecttypen,
    'omschrijving',
    links[0]?.catalogus,
    links.map((l) => l._iotOmschrijving),
    datum,
  );
}

export function registerZaaktypen(c: Catalogi): Resource<ZaakTypeDoc> {
  // The parts of a zaaktype, loaded per page in one query per collection (see GroupLoader).
  let parts: Record<'statustypen' | 'resultaattypen' | 'eigenschappen' | 'roltypen' | 'zaakobjecttypen' | 'ziot', GroupLoader> | undefined;
  const loaders = () =>
    (parts ??= {
      statustypen: new GroupLoader(c.statustypen, 'zaaktype', [], { volgnummer: 1, _id: 1 }),
      resultaattypen: new GroupLoader(c.resultaattypen, 'zaaktype'),
      eigenschappen: new GroupLoader(c.eigenschappen, 'zaaktype'),
      roltypen: new GroupLoader(c.roltypen, 'zaaktype'),
      zaakobjecttypen: new GroupLoader(c.zaakobjecttypen, 'zaaktype'),
      ziot: new GroupLoader(c.ziot, 'zaaktype', ['_iotOmschrijving'], { volgnummer: 1, _id: 1 }),
    });
  const resource: Resource<ZaakTypeDoc, ZaakTypeIn, ZaakTypeFilters, ZaakTypeDetail> = new Resource<
    ZaakTypeDoc,
    ZaakTypeIn,
    ZaakTypeFilters,
    ZaakTypeDetail
  >(c.api, {
    collection: 'zaaktypen',
    resource: 'zaaktype',
    schema: ZaakType,
    input: ZaakTypeInput,
    query: ZaakTypeQuery,
    scopes: { read: ZAAKTYPE_READ, create: WRITE, update: WRITE_OR_FORCED, destroy: DELETE_OR_FORCED },
    sort: { identificatie: 1, beginGeldigheid: 1, _id: 1 },
    kanaal: 'zaaktypen',
    kenmerken: (doc) => ({ catalogus: String(doc.catalogus) }),
    filter: (q) => {
      const f: Filter<Document> = {};
      if (q.catalogus) f.catalogus = q.catalogus;
      if (q.identificatie) f.identificatie = q.identificatie;
      if (q.trefwoorden) f.trefwoorden = { $all: String(q.trefwoorden).split(',').filter(Boolean) };
      return and(f, statusFilter(q.status), q.datumGeldigheid ? geldigOp(String(q.datumGeldigheid)) : {});
    },
    readQuery: ZaakTypeReadQuery,
    // Catalogi 1.3.1 requires deelzaaktypen (1.3.3 no longer does; the server never did).
    declared: { input: ZaakTypeInput.required({ deelzaaktypen: true }) },
    // 1.3.3 asks the deelzaaktypen on PUT (not on create) and no versiedatum.
    ...served133(c, 'ZaakType', {
      schema: ZaakType133,
      input: ZaakTypeInput133,
      query: ZaakTypeQuery,
      readQuery: ZaakTypeReadQuery,
      declared: { update: ZaakTypeInput133.required({ deelzaaktypen: true }) },
    }),
    readFilter: (q) => (q.datumGeldigheid ? geldigOp(String(q.datumGeldigheid)) : {}),
    prepare: (data, ctx, current) => prepare(c, data, ctx, current),
    beforeDestroy: async (current, ctx) => {
      if (mayForceDelete(ctx.caller)) return;
      if (current.concept === false) throw nonField('non-concept-object', 'Een gepubliceerd zaaktype kan niet verwijderd worden.');
      const related = [...(await besluittypenOf(c, current)), ...(await informatieobjecttypenOf(c, ctx.url))];
      if (related.some((d) => d.concept === false)) {
        throw nonField('non-concept-relation', 'Het zaaktype heeft relaties met gepubliceerde typen en kan niet verwijderd worden.');
      }
    },
    // The parts of a zaaktype (statustypen, roltypen, ...) have no meaning without it.
    afterDestroy: async (_current, ctx) => {
      for (const name of ZAAKTYPE_ONDERDELEN) await c[name].store.raw.deleteMany({ zaaktype: ctx.url });
    },
    render: async (doc, url, query, req) => {
      const l = loaders();
      // The parts belong to this version alone: datumGeldigheid only narrows them. Relations by name resolve to
      // the version valid on datumGeldigheid, else today (see versionOn).
      const datum = query?.datumGeldigheid as string | undefined;
      const op = datum ?? vandaag();
      // Ask for all parts before awaiting anything, so a whole page is batched into one query per collection.
      const [statustypen, resultaattypen, eigenschappen, roltypen, zaakobjecttypen, links] = await Promise.all([
        l.statustypen.urls(url, datum),
        l.resultaattypen.urls(url, datum),
        l.eigenschappen.urls(url, datum),
        l.roltypen.urls(url, datum),
        l.zaakobjecttypen.urls(url, datum),
        l.ziot.load(url),
      ]);
      const gerelateerd = doc.gerelateerdeZaaktypen;
      const [besluittypen, deelzaaktypen, gerelateerdeVersies, informatieobjecttypen] = await Promise.all([
        urlsOn(c.besluittypen, 'omschrijving', doc.catalogus, doc.besluittypen, op),
        urlsOn(resource, 'identificatie', doc.catalogus, doc.deelzaaktypen, op),
        versionsOn(
          resource,
          'identificatie',
          doc.catalogus,
          gerelateerd.map((g) => g.zaaktype),
          op,
        ),
        // A zaaktype-informatieobjecttype names its informatieobjecttype by omschrijving.
        urlsOn(
          c.informatieobjecttypen,
          'omschrijving',
          doc.catalogus,
          links.map((z) => z._iotOmschrijving),
          op,
        ),
      ]);
      const gerelateerdUrl = (g: { zaaktype: string }) => {
        const version = isUrl(g.zaaktype) ? undefined : gerelateerdeVersies.get(g.zaaktype);
        return version ? resource.url(String(version._id)) : g.zaaktype;
      };
      // 1.3.3 names the related types beside their URLs.
      const named = in133(c, req);
      return {
        besluittypen,
        deelzaaktypen,
        // Our zaaktypen are kept by identificatie; one of another catalogue API by its URL, of which it is not known.
        gerelateerdeZaaktypen: gerelateerd.map((g) => ({
          ...g,
          zaaktype: gerelateerdUrl(g),
          ...(named && { zaaktypeIdentificatie: isUrl(g.zaaktype) ? '' : g.zaaktype }),
        })),
        ...(named && {
          besluittypeOmschrijving: distinct(doc.besluittypen ?? []),
          informatieobjecttypeOmschrijving: distinct(links.map((z) => z._iotOmschrijving)),
          deelzaaktypeIdentificaties: distinct(doc.deelzaaktypen ?? []),
        }),
        statustypen,
        resultaattypen,
        eigenschappen,
        roltypen,
        zaakobjecttypen,
        informatieobjecttypen,
      };
    },
  });
  return resource;
}

async function prepare(c: Catalogi, parsed: ZaakTypeIn, ctx: WriteContext, current?: Stored<ZaakTypeDoc>): Promise<ZaakTypeDoc> {
  // 1.3.3 no longer asks for a versiedatum: then it is the beginGeldigheid.
  const input = { ...parsed, versiedatum: parsed.versiedatum ?? parsed.beginGeldigheid };
  await mustResolve(c.catalogussen, 'catalogus', input.catalogus);
  const errors: InvalidParam[] = [];
  const besluittypen = await namesFromInput(c.besluittypen, 'besluittypen', 'omschrijving', input.catalogus, input.besluittypen);
  const deelzaaktypen = await namesFromInput(c.zaaktypen, 'deelzaaktypen', 'identificatie', input.catalogus, input.deelzaaktypen ?? []);
  errors.push(...besluittypen.errors, ...deelzaaktypen.errors);
  if (errors.length) throw ZgwError.validation(errors);
  if (besluittypen.foreignCatalogus || deelzaaktypen.foreignCatalogus) {
    throw nonField('relations-incorrect-catalogus', 'De gerelateerde typen moeten tot dezelfde catalogus behoren als het zaaktype.');
  }
  const gerelateerdeZaaktypen = [];
  for (const g of input.gerelateerdeZaaktypen) {
    // A URL to one of our zaaktypen is stored as its identificatie; other URLs stay as given.
    const local = isUrl(g.zaaktype) ? await c.zaaktypen.byUrl(g.zaaktype) : undefined;
    gerelateerdeZaaktypen.push({
      zaaktype: local ? local.identificatie : g.zaaktype,
      aardRelatie: g.aardRelatie,
      toelichting: g.toelichting ?? '',
    });
  }

  const doc: ZaakTypeDoc = {
    ...withDefaults({ ...input, besluittypen: besluittypen.names, deelzaaktypen: deelzaaktypen.names, gerelateerdeZaaktypen }, DEFAULTS),
    concept: current ? current.concept !== false : true,
  };

  if (!mayForceWrite(ctx.caller)) {
    if (current && !onlyEndsGeldigheid(current, doc)) {
      if (current.concept === false) throw nonField('non-concept-object', 'Een gepubliceerd zaaktype kan alleen een eindeGeldigheid krijgen.');
      if ((await besluittypenOf(c, current)).some((b) => b.concept === false)) {
        throw nonField('non-concept-relation', 'Het zaaktype is gerelateerd aan een gepubliceerd besluittype.');
      }
    }
    if (besluittypen.byUrl.some((b) => b.concept === false)) {
      throw nonField('non-concept-relation', 'Een concept zaaktype kan niet aan een gepubliceerd besluittype gerelateerd worden.');
    }
  }

  if (input.verlengingMogelijk && !input.verlengingstermijn) {
    errors.push({ name: 'verlengingstermijn', code: 'required', reason: 'Verlengingstermijn is vereist als verlenging mogelijk is.' });
  }
  if (input.selectielijstProcestype && input.selectielijstProcestype !== current?.selectielijstProcestype) {
    const r = await c.selectielijst.procestype('selectielijstProcestype', input.selectielijstProcestype);
    if (!r.ok) errors.unshift(r.error);
  }
  if (errors.length) throw ZgwError.validation(errors);

  // Parts of the zaaktype carry its identificatie for their `zaaktypeIdentificatie` filter.
  if (current && current.identificatie !== doc.identificatie) {
    for (const name of ZAAKTYPE_ONDERDELEN) {
      await c[name].store.raw.updateMany({ zaaktype: ctx.url }, { $set: { zaaktypeIdentificatie: doc.identificatie } });
    }
  }
  return doc;
}
