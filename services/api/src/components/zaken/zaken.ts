import type { ZaakTypeLink } from '../../common/platform/links';
import type { FastifyRequest } from 'fastify';
import type { Document, Filter, Sort } from 'mongodb';
import { z as zod } from 'zod';
import type { Caller } from '../../common/auth/auth';
import { UuidParams } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { PAGE_SIZE, PageQuery, envelope, pageOf, parsePage } from '../../common/http/pagination';
import { Resource, type WriteContext } from '../../common/platform/resource';
import { live, publicFields, readAll, type Stored } from '../../common/storage/store';
import { answerPage } from '../../common/resources/render-cache';
import { vertrouwelijkheidRank } from '../../common/auth/vertrouwelijkheid';
import {
  AANMAKEN,
  BIJWERKEN,
  GEFORCEERD,
  HEROPENEN,
  LEZEN,
  linkedIds,
  READ,
  STATUSSEN_TOEVOEGEN,
  UPDATE,
  VERWIJDEREN,
  ZAAK_AUTH_FIELDS,
  authBuckets,
  authFilter,
  sameFilter,
  idsIn,
  mayOnZaak,
  mustBeUnchanged,
  mustMayChangeClosed,
  mustMayOnZaak,
  nonField,
  partsOf,
  withDefaults,
  type RollenRead,
  type Zaken,
} from './context';
import { chooseFields, expansionOf, parseFields } from '../../common/resources/fields';
import { fieldOf, treePaths } from '../../common/resources/expand';
import { expand, parseExpand } from './expand';
import { within } from './geo';
import { hasKeys, throwIfAny } from '../../common/platform/references';
import {
  Expanded17,
  V17,
  VERTROUWELIJKHEID,
  Zaak,
  Zaak17,
  ZaakInput,
  ZaakQuery,
  ZaakQuery17,
  ZaakReadQuery,
  ZaakZoek,
  ZaakZoek17,
  type ZaakDoc,
  type ZaakIn,
} from './schemas';
import { unlinkDocument } from './onderdelen';
import { mustNotBeHeld } from './bewaring';
import { naZaakwijziging, volgt } from './herberekenen';
import { rolFilterOfZaakQuery, zakenWithRol } from './rollen';

const DEFAULTS = {
  omschrijving: '',
  toelichting: '',
  einddatumGepland: null,
  uiterlijkeEinddatumAfdoening: null,
  publicatiedatum: null,
  communicatiekanaal: '',
  productenOfDiensten: [],
  betalingsindicatie: '',
  laatsteBetaaldatum: null,
  zaakgeometrie: null,
  verlenging: null,
  opschorting: { indicatie: false, reden: '' },
  selectielijstklasse: '',
  hoofdzaak: null,
  relevanteAndereZaken: [],
  kenmerken: [],
  archiefnominatie: null,
  archiefstatus: 'nog_te_archiveren',
  archiefactiedatum: null,
  opdrachtgevendeOrganisatie: '',
  processobjectaard: null,
  startdatumBewaartermijn: null,
  processobject: null,
  einddatum: null,
} satisfies Partial<ZaakDoc>;

const BETALINGSINDICATIE_WEERGAVE: Record<string, string> = {
  '': '',
  nvt: 'Er is geen sprake van te betalen, met de zaak gemoeide, kosten.',
  nog_niet: 'De met de zaak gemoeide kosten zijn (nog) niet betaald.',
  gedeeltelijk: 'De met de zaak gemoeide kosten zijn gedeeltelijk betaald.',
  geheel: 'De met de zaak gemoeide kosten zijn geheel betaald.',
};

/** Every scope that lets a client see a zaak at all (reads need zaken.lezen; writes check their own scope). */
const ANY_ZAAK_SCOPE = [LEZEN, AANMAKEN, BIJWERKEN, GEFORCEERD, HEROPENEN, STATUSSEN_TOEVOEGEN, VERWIJDEREN];

export function registerZaken(z: Zaken): Resource<ZaakDoc> {
  const zaken: Resource<ZaakDoc, ZaakIn> = new Resource<ZaakDoc, ZaakIn>(z.api, {
    collection: 'zaken',
    resource: 'zaak',
    schema: Zaak,
    variants: { [V17]: { schema: Zaak17 } },
    input: ZaakInput,
    scopes: { read: READ, create: [AANMAKEN], update: UPDATE, destroy: [VERWIJDEREN] },
    operations: ['create', 'update', 'partial_update', 'destroy'],
    crs: true,
    kanaal: 'zaken',
    kenmerken: (doc) => ({
      bronorganisatie: doc.bronorganisatie,
      zaaktype: doc.zaaktype,
      vertrouwelijkheidaanduiding: doc.vertrouwelijkheidaanduiding ?? '',
    }),
    weergave: (doc) => doc.identificatie,
    visible: (doc, caller) => mayOnZaak(caller, doc, ANY_ZAAK_SCOPE),
    prepare: (data, ctx, current) => prepare(z, data, ctx, current),
    // as the source closed it, and its deelzaken (which may have come before it)
    behouden: (source) => ({
      einddatum: (source.einddatum as string | null | undefined) ?? null,
      _deelzaken: ((source.deelzaken as string[] | undefined) ?? []).map((url) => z.zaken.uuidOf(url)).filter((id): id is string => !!id),
    }),
    beforeDestroy: async (current, ctx) => {
      mustMayOnZaak(ctx.caller, current, [VERWIJDEREN]);
      const tree = await withDeelzaken(z, current);
      for (const zaak of tree) mustNotBeHeld(zaak);
      await mustHaveNoBesluiten(z, tree);
    },
    afterDestroy: async (current, ctx) => removeParts(z, current, ctx),
    render: (doc, url) => renderLinks(z, doc, url),
    renderCache: true,
  });
  registerReads(z, zaken);
  return zaken;
}

/** The fields of a zaak made from its links (its parts' URLs) at read time. */
function renderLinks(z: Zaken, doc: Stored<ZaakDoc>, url: string) {
  const one = (id: string | null | undefined, r: Resource<Document>) => (id ? r.url(id) : null);
  return {
    uuid: doc._id,
    betalingsindicatieWeergave: BETALINGSINDICATIE_WEERGAVE[doc.betalingsindicatie ?? ''] ?? '',
    deelzaken: linkedIds(doc, 'deelzaken').map((id) => z.zaken.url(id)),
    eigenschappen: linkedIds(doc, 'eigenschappen').map((id) => `${url}/zaakeigenschappen/${id}`),
    rollen: linkedIds(doc, 'rollen').map((id) => z.rollen.url(id)),
    status: one(doc._status, z.statussen),
    zaakinformatieobjecten: linkedIds(doc, 'zaakinformatieobjecten').map((id) => z.zaakinformatieobjecten.url(id)),
    zaakobjecten: linkedIds(doc, 'zaakobjecten').map((id) => z.zaakobjecten.url(id)),
    resultaat: one(doc._resultaat, z.resultaten),
  };
}

// ---------------------------------------------------------------- writes

async function prepare(z: Zaken, input: ZaakIn, ctx: WriteContext, current?: Stored<ZaakDoc>): Promise<ZaakDoc> {
  const { caller } = ctx;
  if (current) {
    mustBeUnchanged(current, input, ['zaaktype', 'identificatie', 'bronorganisatie']);
    mustMayOnZaak(caller, current, UPDATE);
    mustMayChangeClosed(caller, current);
  }
  const zaaktype = await z.refs.mustCatalogus('zaaktypen', 'zaaktype', input.zaaktype);
  if (zaaktype.concept !== false) throw ZgwError.field('zaaktype', 'not-published', 'Het zaaktype is nog niet gepubliceerd.');

  const fields = withDefaults(input, DEFAULTS);
  const vertrouwelijkheidaanduiding = fields.vertrouwelijkheidaanduiding ?? VERTROUWELIJKHEID.parse(zaaktype.vertrouwelijkheidaanduiding);
  const doc: ZaakDoc = {
    ...fields,
    zaaktype: z.catalogi.zaaktypen.url(zaaktype._id),
    vertrouwelijkheidaanduiding,
    registratiedatum: fields.registratiedatum ?? current?.registratiedatum ?? new Date().toISOString().slice(0, 10),
    einddatum: current?.einddatum ?? null,
    _vertrouwelijkheid: vertrouwelijkheidRank(vertrouwelijkheidaanduiding),
    // a new one is generated below, once the caller may create the zaak and its references hold
    identificatie: fields.identificatie ?? current?.identificatie ?? '',
  };
  if (!current) mustMayOnZaak(caller, doc, [AANMAKEN]);

  await checkReferences(z, doc, zaaktype, ctx);
  checkBetaling(doc);
  await checkArchief(z, doc, current);
  // a closed zaak's archiving follows its hoofdzaak and relevanteAndereZaken; what the client changes of it is its own
  if (current && !ctx.historie && volgt(current)) Object.assign(doc, await naZaakwijziging(z, current, doc));
  if (fields.identificatie === undefined && !current) doc.identificatie = await z.identificaties.next(doc.bronorganisatie, doc.startdatum);
  if (!current && input.identificatie !== undefined) await mustBeUnique(z, doc);
  return doc;
}

async function checkReferences(z: Zaken, doc: ZaakDoc, zaaktype: ZaakTypeLink, ctx: WriteContext): Promise<void> {
  const checks = [];
  if (doc.communicatiekanaal) checks.push(z.refs.remote('communicatiekanaal', doc.communicatiekanaal, hasKeys('naam')));
  // history names zaken the import may bring later
  if (!ctx.historie)
    for (const [i, rel] of (doc.relevanteAndereZaken ?? []).entries()) checks.push(zaakRef(z, `relevanteAndereZaken.${i}.url`, rel.url));
  throwIfAny(await Promise.all(checks));

  const allowed = new Set(zaaktype.productenOfDiensten ?? []);
  if ((doc.productenOfDiensten ?? []).some((p) => !allowed.has(p))) {
    throw ZgwError.field('productenOfDiensten', 'invalid-products-services', 'Alle productenOfDiensten moeten bij het zaaktype horen.');
  }

  if (doc.hoofdzaak) {
    const hoofdzaakUrl = doc.hoofdzaak;
    if (hoofdzaakUrl === ctx.url) throw ZgwError.field('hoofdzaak', 'self-forbidden', 'Een zaak kan niet zijn eigen hoofdzaak zijn.');
    // A local relation: a URL that is no zaak URL of this API is `no_match`, one of a zaak that is not there `does_not_exist`.
    const uuid = z.zaken.uuidOf(hoofdzaakUrl);
    if (!uuid) throw ZgwError.field('hoofdzaak', 'no_match', `${hoofdzaakUrl} is geen zaak-URL van deze Zaken API.`);
    const hoofdzaak = await z.zaken.store.get(uuid);
    if (!hoofdzaak && ctx.historie) return;
    if (!hoofdzaak) throw ZgwError.field('hoofdzaak', 'does_not_exist', `De zaak ${hoofdzaakUrl} bestaat niet.`);
    if (hoofdzaak.hoofdzaak) throw ZgwError.field('hoofdzaak', 'deelzaak-als-hoofdzaak', 'De hoofdzaak is zelf een deelzaak.');
  }
}

async function zaakRef(z: Zaken, name: string, url: string) {
  if (z.zaken.uuidOf(url)) return (await z.zaken.byUrl(url)) ? undefined : { name, code: 'bad-url', reason: `${url} bestaat niet.` };
  return z.refs.remote(name, url, hasKeys('zaaktype', 'bronorganisatie'));
}

/** zrc-014: betalingsindicatie nvt has no laatsteBetaaldatum. */
function checkBetaling(doc: ZaakDoc): void {
  if (doc.betalingsindicatie !== 'nvt') return;
  if (doc.laatsteBetaaldatum) {
    throw ZgwError.field('laatsteBetaaldatum', 'betaling-nvt', 'Bij betalingsindicatie "nvt" hoort geen laatsteBetaaldatum.');
  }
}

/** zrc-022: leaving nog_te_archiveren needs archiefnominatie and archiefactiedatum (and archived documents). */
async function checkArchief(z: Zaken, doc: ZaakDoc, current?: ZaakDoc): Promise<void> {
  if (!current || doc.archiefstatus === 'nog_te_archiveren') return;
  // The documents come first: the standard's tests expect documents-not-archived before the missing fields.
  const zios = await z.zaakinformatieobjecten.store.find(idsIn(linkedIds(current, 'zaakinformatieobjecten')));
  for (const zio of zios) {
    const { status, body } = await z.refs.informatieobject(zio.informatieobject);
    if (status === 200 && !(body && typeof body === 'object' && fieldOf(body, 'status') === 'gearchiveerd')) {
      throw ZgwError.field('archiefstatus', 'documents-not-archived', 'Alle informatieobjecten van de zaak moeten eerst gearchiveerd zijn.');
    }
  }
  if (!doc.archiefnominatie) throw ZgwError.field('archiefnominatie', 'archiefnominatie-not-set', 'Zet eerst de archiefnominatie.');
  if (!doc.archiefactiedatum) throw ZgwError.field('archiefactiedatum', 'archiefactiedatum-not-set', 'Zet eerst de archiefactiedatum.');
}

async function mustBeUnique(z: Zaken, doc: ZaakDoc): Promise<void> {
  const taken = await z.zaken.store.findBy('identificatie', doc.identificatie, { bronorganisatie: doc.bronorganisatie });
  if (taken.length) throw ZgwError.field('identificatie', 'identificatie-niet-uniek', 'Deze identificatie bestaat al voor deze bronorganisatie.');
}

/** The zaak and, below it, its deelzaken and theirs: what a delete of the zaak takes along (zrc-023). */
async function withDeelzaken(z: Zaken, zaak: Stored<ZaakDoc>): Promise<Stored<ZaakDoc>[]> {
  const tree = [zaak];
  for (const deelzaak of await z.zaken.store.find(idsIn(linkedIds(zaak, 'deelzaken')))) tree.push(...(await withDeelzaken(z, deelzaak)));
  return tree;
}

/**
 * A zaak that a besluit of this platform names (or a deelzaak that would go with it) stays until that besluit is
 * deleted or given another zaak: the besluit would point at nothing (`pending-besluit-relation`).
 */
async function mustHaveNoBesluiten(z: Zaken, tree: Stored<ZaakDoc>[]): Promise<void> {
  const besluiten = z.api.deps.components.besluiten;
  if (!besluiten) return;
  for (const zaak of tree) {
    if (await besluiten.anyOfZaak(z.zaken.url(zaak._id))) {
      throw nonField('pending-besluit-relation', 'Verwijder eerst de besluiten van deze zaak (of koppel ze aan een andere zaak).');
    }
  }
}

/** Deleting a zaak deletes its parts and its deelzaken (zrc-023), each with its own notification and audit entry. */
async function removeParts(z: Zaken, zaak: Stored<ZaakDoc>, ctx: WriteContext): Promise<void> {
  const url = z.zaken.url(zaak._id);
  const zios = z.zaakinformatieobjecten;
  for (const part of partsOf(z)) {
    if (part !== zios) for (const doc of await part.store.find({ zaak: url })) await part.destroy(doc, ctx);
    // a document of this platform loses its objectinformatieobject with the link
    else for (const zio of await zios.store.find({ zaak: url })) if (await zios.destroy(zio, ctx)) await unlinkDocument(z, zio, ctx);
  }
  for (const deelzaak of await z.zaken.store.find(idsIn(linkedIds(zaak, 'deelzaken')))) {
    if (await z.zaken.destroy(deelzaak, ctx)) await removeParts(z, deelzaak, ctx);
  }
}

// ---------------------------------------------------------------- reads

const DATE_OPS: Record<string, string> = { gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte' };
const SIMPLE = ['identificatie', 'bronorganisatie', 'zaaktype', 'archiefnominatie', 'archiefstatus'];
const DATES = ['archiefactiedatum', 'startdatum', 'registratiedatum', 'einddatum', 'einddatumGepland', 'uiterlijkeEinddatumAfdoening'];
/** The parameters of each date (`startdatum__gte`, `startdatum__isnull`) and of each `__in`, named once. */
const DATE_PARAMS = DATES.map((field) => ({
  field,
  ops: Object.entries(DATE_OPS).map(([suffix, op]) => [`${field}__${suffix}`, op] as const),
  isnull: `${field}__isnull`,
}));
const IN_PARAMS = ['bronorganisatie', 'archiefnominatie', 'archiefstatus', 'zaaktype'].map((field) => [field, `${field}__in`] as const);

/** `field` equal to one of `values`: a `$or` of equalities (up to 50 values; more is an `$in`). */
function anyOf(field: string, values: string[]): Filter<Document> {
  if (values.length === 1) return { [field]: values[0] };
  return values.length > 0 && values.length <= 50 ? { $or: values.map((v) => ({ [field]: v })) } : { [field]: { $in: values } };
}

function listOf(v: unknown): string[] {
  return Array.isArray(v)
    ? v.map(String)
    : String(v)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

/**
 * What a zaken list is asked: the list's query parameters (of either version) or a `_zoek` body (which also has
 * uuid__in, zaaktype__in, zaakgeometrie, and in 1.7 `fields`), with the `expand` the request asks.
 */
export type ZaakVraag = zod.output<typeof ZaakQuery17> | zod.output<typeof ZaakZoek17>;

/** The MongoDB filter of the /zaken list filters and the `_zoek` body. */
export async function zaakFilter(z: Zaken, q: ZaakVraag, caller: Caller, withArea = true, rollenRead?: RollenRead): Promise<Filter<Document>> {
  const parts: Filter<Document>[] = [authFilter(caller, ZAAK_AUTH_FIELDS)];
  // (a document of the query: the driver types a filter's _id as an ObjectId)
  const f: Document = {};
  // (the parameters named in lists are read by name: fieldOf)
  for (const k of SIMPLE) if (fieldOf(q, k) !== undefined && fieldOf(q, k) !== '') f[k] = fieldOf(q, k);
  // `__in` as one equality per value: each is served by the field's index in list order (an $in with a sort is not).
  for (const [k, param] of IN_PARAMS) {
    // An empty list (`?archiefstatus__in=`) filters nothing, as an empty filter value does.
    const values = fieldOf(q, param) === undefined ? [] : listOf(fieldOf(q, param));
    if (values.length) parts.push(anyOf(k, values));
  }
  for (const { field, ops, isnull: isnullParam } of DATE_PARAMS) {
    if (fieldOf(q, field) !== undefined) f[field] = fieldOf(q, field);
    let cond: Filter<Document> | undefined;
    for (const [param, op] of ops) if (fieldOf(q, param) !== undefined) (cond ??= {})[op] = fieldOf(q, param);
    const isnull = fieldOf(q, isnullParam);
    // isnull=false as "any date" (dates are strings), a range an index bounds, unlike `$ne: null`
    if (isnull !== undefined)
      cond = Object.assign(cond ?? {}, isnull === true || ['true', 'True', '1'].includes(String(isnull)) ? { $eq: null } : { $gte: '' });
    if (cond) f[field] = cond;
  }
  if (q.maximaleVertrouwelijkheidaanduiding) f._vertrouwelijkheid = { $lte: vertrouwelijkheidRank(String(q.maximaleVertrouwelijkheidaanduiding)) };
  if ('uuid__in' in q && q.uuid__in) f._id = { $in: listOf(q.uuid__in) };
  const within = 'zaakgeometrie' in q ? q.zaakgeometrie?.within : undefined;
  if (within && withArea) f.zaakgeometrie = { $geoWithin: { $geometry: within } };
  parts.push(f);
  const rolFilter = rolFilterOfZaakQuery(z.api.deps.pii, q);
  if (rolFilter) {
    parts.push(idsIn(await zakenWithRol(z, rolFilter, rollenRead)));
  }
  const real = parts.filter((p) => Object.keys(p).length);
  return real.length === 0 ? {} : real.length === 1 ? real[0]! : { $and: real };
}

function sortOf(ordering: unknown): Sort {
  if (!ordering) return { _created: 1, _id: 1 };
  const s = String(ordering);
  const desc = s.startsWith('-');
  return { [desc ? s.slice(1) : s]: desc ? -1 : 1, _id: desc ? -1 : 1 };
}

/** The fields `fields` may name on `_zoek`. */
const ZAAK_FIELDS = new Set(Object.keys(Zaak17.shape));

function registerReads(z: Zaken, zaken: Resource<ZaakDoc>): void {
  const geo = { supported: true };
  const list = async (req: FastifyRequest, caller: Caller, q: ZaakVraag, rawPage: unknown, cursor: unknown) => {
    const version = z.api.version(req);
    // `fields` asks for its own expansion (never beside `expand`).
    const asked = 'fields' in q ? q.fields : undefined;
    if (asked !== undefined && q.expand) throw ZgwError.field('fields', 'fields-en-expand', 'Gebruik fields of expand, niet beide (zrc-029).');
    const tree = parseExpand(asked !== undefined ? treePaths(expansionOf(asked)) : q.expand, version);
    const fields = parseFields(asked, tree, ZAAK_FIELDS);
    const p = parsePage(rawPage);
    const request = { page: p, size: PAGE_SIZE, sort: sortOf(q.ordering), cursor: typeof cursor === 'string' ? cursor : undefined };
    // The rollen a search by BSN reads, for an expansion into the rollen of the zaken it finds.
    const rollenRead: RollenRead | undefined = tree ? new Map() : undefined;
    const query = async () => {
      const filter = await zaakFilter(z, q, caller, true, rollenRead);
      // Only the autorisaties restrict the list: its count is the sum of the maintained counts of their buckets.
      const authOnly = !caller.all && sameFilter(filter, authFilter(caller, ZAAK_AUTH_FIELDS));
      return zaken.store.pageStored(filter, authOnly ? { ...request, count: () => zaken.store.countBuckets(authBuckets(caller)) } : request);
    };
    const area = 'zaakgeometrie' in q ? q.zaakgeometrie?.within : undefined;
    // A store without $geoWithin (the local stand-in): the area is applied here, to the zaken the other filters find.
    const inArea = async () => {
      const filter = live(await zaakFilter(z, q, caller, false, rollenRead));
      const candidates = await readAll(zaken.store.raw.find(filter, { projection: { zaakgeometrie: 1 }, sort: { _created: 1, _id: 1 } }));
      return zaken.store.pageStored(idsIn(candidates.filter((d) => within(d.zaakgeometrie, area)).map((d) => d._id)), request);
    };
    let result;
    try {
      result = area && !geo.supported ? await inArea() : await query();
    } catch (err) {
      if (!area || !/\$geoWithin is not yet implemented/.test(String((err as Error).message))) throw err;
      geo.supported = false;
      result = await inArea();
    }
    const { count, items, ...cont } = result;
    const requestUrl = `${z.api.deps.urls.base}${req.url}`;
    // A page is written from the zaken's texts (see RenderCache), an expansion put into them.
    return answerPage(
      envelope(requestUrl, p, count, await zaken.renderStored(items), cont),
      tree && ((objects) => expand(z, caller, objects, tree, version, rollenRead)),
      fields && ((r) => chooseFields(r, fields)),
    );
  };
  const Page = pageOf(Zaak);
  const Page17 = pageOf(Expanded17.Zaak);
  z.api.route({
    method: 'GET',
    path: '/zaken',
    operationId: 'zaak_list',
    crs: true,
    summary: 'Alle zaken opvragen.',
    scopes: READ,
    query: ZaakQuery.extend(PageQuery.shape),
    response: Page,
    variants: { [V17]: { query: ZaakQuery17.extend(PageQuery.shape), response: Page17 } },
    handler: ({ req, caller, query }) => list(req, caller, query, query.page, query.cursor),
  });
  z.api.route({
    method: 'POST',
    path: '/zaken/_zoek',
    operationId: 'zaak__zoek',
    crs: true,
    summary: 'Zoek zaken met de filters in de body (voorkeur boven GET met een BSN in de URL).',
    scopes: READ,
    query: PageQuery,
    body: ZaakZoek,
    status: 200,
    response: Page,
    variants: { [V17]: { query: PageQuery.extend({ expand: zod.string().optional() }), body: ZaakZoek17, response: Page17 } },
    // (1.7 also takes the expand as a query parameter)
    handler: ({ req, caller, query, body }) => {
      const asked = (query as { expand?: string }).expand;
      return list(req, caller, asked ? { ...body, expand: body.expand ?? asked } : body, query.page, query.cursor);
    },
  });
  z.api.route({
    method: 'GET',
    path: '/zaken/:uuid',
    operationId: 'zaak_retrieve',
    crs: true,
    head: true,
    summary: 'Een specifieke zaak opvragen.',
    scopes: READ,
    params: UuidParams,
    query: ZaakReadQuery,
    response: Zaak,
    variants: { [V17]: { response: Expanded17.Zaak } },
    etag: true,
    handler: async ({ req, caller, params, query }) => {
      const version = z.api.version(req);
      const tree = parseExpand(query.expand, version);
      const doc = await zaken.getOr404(params.uuid);
      if (!mayOnZaak(caller, doc, [LEZEN])) throw ZgwError.forbidden();
      const body = await zaken.toApi(doc);
      await expand(z, caller, [body], tree, version);
      return body;
    },
  });
}

export { publicFields, nonField };
