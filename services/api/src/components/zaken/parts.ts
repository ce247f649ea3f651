import { fieldOf } from '../../common/resources/expand';
import type { Document, Filter } from 'mongodb';
import { z as zod } from 'zod';
import { ZgwError } from '../../common/http/errors';
import {
  Resource,
  type AnyQuery,
  type Answer,
  type DeclaredResource,
  type Operation,
  type ResourceDef,
  type WriteContext,
} from '../../common/platform/resource';
import { pull, type Stored } from '../../common/storage/store';
import {
  LEZEN,
  PART_AUTH_FIELDS,
  authBuckets,
  authFilter,
  sameFilter,
  mayOnZaak,
  mustBeUnchanged,
  mustMayChangeClosed,
  mustMayOnZaak,
  partFacts,
  partsOf,
  withDefaults,
  zaakOfPart,
  type Zaken,
} from './context';
import { expand, parseExpand } from './expand';
import { herbereken, markeer } from './herberekenen';
import { mustNotBeHeld } from './bewaring';
import { EXPANDABLE17, Expanded17, V17, type Expandable17, type ZaakDoc, type ZaakPartDoc, type ZaakPartFacts } from './schemas';

/**
 * A part of a zaak (status, resultaat, rol, zaakobject, zaakinformatieobject, klantcontact, zaakcontactmoment,
 * zaakverzoek): it belongs to one zaak for good, is authorised by that zaak's zaaktype and vertrouwelijkheid (copied
 * onto the part so lists filter inside the query), changes a closed zaak only with zaken.geforceerd-bijwerken, and
 * notifies on kanaal `zaken` with the zaak as hoofdObject.
 */
export interface PartDef<D extends ZaakPartDoc, Q extends AnyQuery = { zaak?: string }> {
  collection: string;
  resource: string;
  /** The field that names the zaak, where it is not `zaak` (a zaaknotitie's `gerelateerdAan`); the part keeps it as `zaak` too. */
  zaakField?: string;
  /** As ResourceDef: served from a later version on, named `_read`/`_delete`, a list with `pageSize`. */
  since?: ResourceDef<D>['since'];
  operationIds?: ResourceDef<D>['operationIds'];
  pageSize?: boolean;
  schema: zod.ZodType;
  input: zod.ZodObject;
  query: zod.ZodObject & zod.ZodType<Q>;
  scopes: ResourceDef<D>['scopes'];
  operations: Operation[];
  plainList?: boolean;
  /** What the standard's file declares (see ResourceDef). */
  head?: ResourceDef<D>['head'];
  declared?: ResourceDef<D>['declared'];
  /** Its name in the 1.7 file, where its lists and details expand (`Status`: `StatusExpanded`, ...). */
  in17?: Expandable17;
  /** What 1.7's document declares of its writes, where that differs from `declared`. */
  declared17?: DeclaredResource;
  auditHeaders?: ResourceDef<D>['auditHeaders'];
  defaults?: Partial<D>;
  /** The field on the zaak that lists this part's uuids (kept in step on create and delete). */
  link?: string;
  /** Fields that may not change after creation besides `zaak`. */
  immutable?: string[];
  /** Whether a closed zaak needs zaken.geforceerd-bijwerken for this part (statussen have their own rule). */
  closedNeedsForce?: boolean;
  /** List filters besides `zaak`, as exact matches on the stored field of the same name. */
  exact?: (keyof Q & string)[];
  filter?(q: Q): Filter<Document> | Promise<Filter<Document>>;
  /** Rules of this part on its (validated, defaulted) fields; returns its fields to store (the zaak's facts are added after). */
  rules?: (doc: PartFields<D>, zaak: Stored<ZaakDoc>, ctx: WriteContext, current?: Stored<D>) => Promise<PartFields<D>>;
  afterWrite?: (stored: Stored<D>, zaak: Stored<ZaakDoc>, ctx: WriteContext, previous?: Stored<D>) => Promise<void>;
  /** As ResourceDef.followsCreate, for a part without a link on its zaak (one with a link always follows). */
  followsCreate?: ResourceDef<D>['followsCreate'];
  /** As ResourceDef.behouden; default the source's registratiedatum (a rol's, a zaakinformatieobject's). */
  behouden?: ResourceDef<D>['behouden'];
  beforeDestroy?: (current: Stored<D>, zaak: Stored<ZaakDoc> | undefined, ctx: WriteContext) => Promise<void>;
  afterDestroy?: (current: Stored<D>, ctx: WriteContext) => Promise<void>;
  render?: ResourceDef<D>['render'];
  /** Whether it is a source of what a closed zaak derives of its archiving: its writes recompute that (herberekenen.ts). */
  archiefbron?: boolean;
}

/** A part's own fields: what the facts of its zaak are added to. */
export type PartFields<D extends ZaakPartDoc> = Omit<D, keyof ZaakPartFacts>;

/** The zaak a part's `zaak` field points at: `bad-url` when it is no zaak of this API. */
export async function zaakOf(z: Zaken, url: string, name = 'zaak'): Promise<Stored<ZaakDoc>> {
  const zaak = await z.zaken.byUrl(url);
  if (!zaak) throw ZgwError.field(name, 'bad-url', `${url} is geen zaak van deze Zaken API.`);
  return zaak;
}

export function registerPart<D extends ZaakPartDoc, Q extends AnyQuery = { zaak?: string }>(z: Zaken, def: PartDef<D, Q>): Resource<D> {
  const zaakOfStored = async (part: D) => z.zaken.byUrl(part.zaak);
  // In history (the import stores one zaak's parts one after another), afterWrite takes the zaak the rules read: only
  // the part's own insert came between. A live write reads it again (another request may have changed it).
  const gelezen = new WeakMap<WriteContext, Stored<ZaakDoc>>();
  // The writes that marked their zaak to have its archiving recomputed (markeer), live ones only: history keeps what
  // its source has.
  const gemarkeerd = new WeakSet<WriteContext>();
  const markeerVoor = async (zaak: Stored<ZaakDoc> | undefined, ctx: WriteContext) => {
    if (def.archiefbron && !ctx.historie && (await markeer(z, zaak))) gemarkeerd.add(ctx);
  };
  const herberekenNa = async (zaakId: string, ctx: WriteContext) => {
    if (gemarkeerd.delete(ctx)) await herbereken(z, zaakId, ctx.caller);
  };
  const field = def.zaakField ?? 'zaak';
  const resource: Resource<D> = new Resource<D, zod.output<zod.ZodObject>, Q>(z.api, {
    collection: def.collection,
    resource: def.resource,
    since: def.since,
    operationIds: def.operationIds,
    pageSize: def.pageSize,
    // (the copy under `zaak` is the platform's own where the zaak has another name)
    // (its schema has no `zaak` then: the answer's type is the stored document's, whose `zaak` is the platform's own)
    present: field === 'zaak' ? undefined : ({ zaak: _zaak, ...body }) => body as Answer<D>,
    schema: def.schema,
    input: def.input,
    query: def.query,
    scopes: def.scopes,
    operations: def.operations,
    plainList: def.plainList,
    head: def.head,
    declared: def.declared,
    ...(def.in17 && expanding17<D, Q>(z, def.in17, def.query, def.declared17)),
    auditHeaders: def.auditHeaders,
    kanaal: 'zaken',
    hoofdObject: (doc) => doc.zaak,
    kenmerken: (doc) => {
      const facts = zaakOfPart(doc);
      return {
        bronorganisatie: doc._bronorganisatie,
        zaaktype: doc._zaaktype,
        vertrouwelijkheidaanduiding: facts.vertrouwelijkheidaanduiding ?? '',
      };
    },
    visible: (doc, caller) => mayOnZaak(caller, zaakOfPart(doc), [LEZEN, ...def.scopes.create, ...def.scopes.update, ...def.scopes.destroy]),
    // Lists only the autorisaties restrict are counted from the counts kept per authorisation bucket.
    count: (filter, caller) =>
      !caller.all && sameFilter(filter, authFilter(caller, PART_AUTH_FIELDS)) ? () => resource.store.countBuckets(authBuckets(caller)) : undefined,
    filter: async (q, caller) => {
      const f: Filter<Document> = {};
      // (every part's list takes its zaak, but a zaaknotitie's: gerelateerdAan)
      if ('zaak' in q && q.zaak) f.zaak = q.zaak;
      for (const k of def.exact ?? []) if (q[k] !== undefined && q[k] !== '') f[k] = q[k];
      const parts = [authFilter(caller, PART_AUTH_FIELDS), f, def.filter ? await def.filter(q) : {}].filter((p) => Object.keys(p).length);
      return parts.length === 0 ? {} : parts.length === 1 ? parts[0]! : { $and: parts };
    },
    prepare: async (data, ctx, current) => {
      const input = data as PartFields<D>;
      mustBeUnchanged(current, input, [field, ...(def.immutable ?? [])]);
      const zaakUrl = String(fieldOf(input, field));
      const zaak = await zaakOf(z, zaakUrl, field);
      mustMayOnZaak(ctx.caller, zaak, current ? def.scopes.update : def.scopes.create);
      let doc = withDefaults(input, def.defaults ?? {}) as PartFields<D>;
      if (def.rules) doc = await def.rules(doc, zaak, ctx, current);
      // After the rules: invalid input is a 400 whether or not the zaak is closed (a second resultaat: `unique`).
      if (def.closedNeedsForce !== false) mustMayChangeClosed(ctx.caller, zaak);
      if (ctx.historie) gelezen.set(ctx, zaak);
      await markeerVoor(zaak, ctx);
      return { ...doc, zaak: zaakUrl, ...partFacts(zaak), _bronorganisatie: zaak.bronorganisatie, _zaakUuid: zaak._id } as D;
    },
    afterWrite: async (stored, ctx, previous) => {
      const zaak = gelezen.get(ctx) ?? (await zaakOfStored(stored));
      gelezen.delete(ctx);
      if (!zaak) return;
      // (the link on the zaak and the part's own follow-up writes touch different fields: side by side)
      await Promise.all([
        def.link && !previous ? z.zaken.store.followUp({ _id: zaak._id }, { $addToSet: { [def.link]: stored._id } }) : undefined,
        def.afterWrite?.(stored, zaak, ctx, previous),
      ]);
      await herberekenNa(zaak._id, ctx);
    },
    followsCreate: def.link ? undefined : def.followsCreate,
    behouden: def.behouden ?? ((source) => (source.registratiedatum ? { registratiedatum: source.registratiedatum } : {}) as Partial<D>),
    beforeDestroy: async (current, ctx) => {
      const zaak = await zaakOfStored(current);
      if (zaak) {
        mustMayOnZaak(ctx.caller, zaak, def.scopes.destroy);
        if (def.closedNeedsForce !== false) mustMayChangeClosed(ctx.caller, zaak);
        mustNotBeHeld(zaak);
      }
      await def.beforeDestroy?.(current, zaak ?? undefined, ctx);
      await markeerVoor(zaak ?? undefined, ctx);
    },
    afterDestroy: async (current, ctx) => {
      if (def.link) await z.zaken.store.raw.updateOne({ _id: current._zaakUuid }, pull(def.link, current._id));
      await def.afterDestroy?.(current, ctx);
      await herberekenNa(current._zaakUuid, ctx);
    },
    render: def.render,
  });
  resource.store.countBy(['_zaaktype', '_vertrouwelijkheid']);
  return resource;
}

/** A part in 1.7: `expand` on its list and detail, to any depth and into documents and besluiten (see expand.ts). */
function expanding17<D extends ZaakPartDoc, Q extends AnyQuery>(
  z: Zaken,
  name: Expandable17,
  query: zod.ZodObject & zod.ZodType<Q>,
  declared?: DeclaredResource,
): Pick<ResourceDef<D, unknown, Q>, 'variants' | 'expand'> {
  const expandParam = { expand: zod.string().optional() };
  const allowed = new Set(EXPANDABLE17[name]);
  return {
    variants: {
      [V17]: {
        expanded: Expanded17[name],
        // (the list's filters with `expand` beside them give Q too)
        query: query.extend(expandParam) as zod.ZodObject & zod.ZodType<Q>,
        readQuery: zod.object(expandParam),
        declared,
      },
    },
    expand: async (bodies, q, req) => {
      const version = z.api.version(req);
      await expand(z, req.caller!, bodies, parseExpand('expand' in q ? q.expand : undefined, version, allowed), version);
    },
  };
}

/** Keeps the authorisation copies on every part of a zaak in step when its vertrouwelijkheidaanduiding changes. */
export async function syncPartFacts(z: Zaken, zaak: Stored<ZaakDoc>): Promise<void> {
  const facts = partFacts(zaak);
  for (const part of partsOf(z)) await part.store.moveBucket({ zaak: z.zaken.url(zaak._id) }, facts);
}
