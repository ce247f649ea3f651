import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Document, Filter, Sort } from 'mongodb';
import { z } from 'zod';
import {
  AUDIT_TOPIC,
  AUDITTRAIL_COLLECTION,
  currentTenant,
  inTenant,
  platformDb,
  TENANT_FIELD,
  type AuditEntry,
  type JsonObject,
  type Notificatie,
  type OutboxEvent,
} from '@zgw/shared';
import { Caller } from '../auth/auth';
import { UuidParams, type ComponentApi, type RouteSpec, type RouteVariant } from './component';
import { ZgwError } from '../http/errors';
import { nameUuid } from '../http/urls';
import { jsonObject, parseLiberal, parseOrThrow } from '../http/validation';
import { batcherOf, laterWins } from '../storage/write-batch';
import { PAGE_SIZE, PageQuery, envelope, pageOf, parsePage } from '../http/pagination';

/** The page's fields of a list query (see listRoute). */
export type PageFields = z.output<typeof PageQuery> & { pageSize?: number };
import type { ExpandedAnswer } from '../resources/expand';
import { type Rendered } from '../resources/render-cache';
import { storedId } from '../storage/stored-bytes';
import { copyPublic, inProef, newEvent, publicFields, type PublicFields, type RawDoc, type Store, type Stored } from '../storage/store';

export type Operation = 'list' | 'create' | 'read' | 'update' | 'partial_update' | 'destroy';
const ALL_OPERATIONS: Operation[] = ['list', 'create', 'read', 'update', 'partial_update', 'destroy'];

export interface WriteContext {
  caller: Caller;
  api: ComponentApi;
  uuid: string;
  url: string;
  /** The request's `X-Audit-Toelichting`, for the audit trail. */
  toelichting?: string;
  /** The API version the write is made in (components with several; see ComponentDef.versions). */
  version: string;
  /**
   * Set when the write brings history from another registration (the registration import): the rules meant for new
   * writes that would refuse history (a status after the eindstatus, a reference to an object the import brings
   * later) let it pass, and derived fields keep the source's values (see Resource.importeer).
   */
  historie?: Herkomst;
}

/** Where imported history comes from: the import run and the source registration's base URL. */
export interface Herkomst {
  run: string;
  bron: string;
  /** A dry run: the rules are applied and the outcome told, nothing is stored (see Store.proefBewaar). */
  proef?: boolean;
}

const historieScope = new AsyncLocalStorage<Herkomst>();

/**
 * Runs `fn` as the registration import: every write in it, including those that follow from it (a besluit's link on
 * its zaak, a document's objectinformatieobject), is history (WriteContext.historie) and notifies no abonnement.
 */
export function alsHistorie<T>(herkomst: Herkomst, fn: () => Promise<T>): Promise<T> {
  return historieScope.run(herkomst, fn);
}

/** What is held under some UUIDs at platform level, read for a batch of the import at once (Resource.gehouden). */
export type Gehouden = Map<string, RawDoc | null>;

/** What became of one imported object. */
export type ImportUitkomst = 'nieuw' | 'bijgewerkt' | 'bezet';

export type WriteActie = 'create' | 'update' | 'partial_update' | 'destroy';
const AUDIT_ACTIE: Record<WriteActie, { weergave: string; resultaat: number }> = {
  create: { weergave: 'Object aangemaakt', resultaat: 201 },
  update: { weergave: 'Object bijgewerkt', resultaat: 200 },
  partial_update: { weergave: 'Object deels bijgewerkt', resultaat: 200 },
  destroy: { weergave: 'Object verwijderd', resultaat: 204 },
};

/** What a query schema gives whose fields are not known here: the default of a resource's `Q` and `RQ`. */
export type AnyQuery = z.output<z.ZodObject>;

/**
 * An object as its resource answers it: the public fields of its stored document, its URL, the fields `render` adds
 * (`R`) and what an expansion embeds (`_expand`).
 */
export type Answer<D, R = object> = PublicFields<D> & { url: string } & R & ExpandedAnswer;

/**
 * The members that take a stored document or a query are methods, so that a resource of a precise document type is
 * also a resource of the view other components read of it (links.ts), and a `Resource<Document>` for code that
 * serves several resources alike.
 * `I`: what its input schemas give (`z.output` of `input` and of each version's): what `prepare` receives.
 * `Q`: what its list query gives (`z.output` of `query`, and of each version's, with the page's fields): what
 * `filter` receives. `RQ`: the same of `readQuery` for `readFilter`. `R`: the fields `render` adds to the stored ones.
 */
export interface ResourceDef<D extends Document, I = z.output<z.ZodObject>, Q = AnyQuery, RQ = AnyQuery, R extends object = object> {
  /** Collection and URL segment, e.g. `applicaties`. */
  collection: string;
  /** The MongoDB collection when it differs from the URL segment (two components serve a `besluiten`). */
  storeAs?: string;
  /** Resource name in notifications and operationIds, e.g. `applicatie`. */
  resource: string;
  /** The name in operationIds where the standard's file names it otherwise (`zaakinformatieobjecttype_list`). */
  operationName?: string;
  /** The file names its detail read and delete `_read` and `_delete` where its component says `_retrieve` (Zaken 1.7's notities). */
  operationIds?: 'read';
  /** Whether the standard declares a HEAD beside the detail GET (default: the component's `heads`). */
  head?: boolean;
  /** The standard declares the geometry headers on every operation of the resource (zaken). */
  crs?: boolean;
  /** What the document declares where the standard's file differs from what the server takes (see Declared). */
  declared?: DeclaredResource;
  /** The writes on which the standard declares the audit headers, where not every write of an audited component. */
  auditHeaders?: readonly WriteActie[];
  /** The resource as served (drives the response OpenAPI schema). */
  schema: z.ZodType;
  /** Request body of create and PUT; PATCH uses its partial unless `patchInput` is given. */
  input: z.ZodObject;
  patchInput?: z.ZodObject;
  /** List filters (query parameters other than `page`): what they give is `Q`. */
  query?: z.ZodObject & z.ZodType<Q>;
  filter?(query: Q & PageFields, caller: Caller): Filter<Document> | Promise<Filter<Document>>;
  /** How to count a list without counting documents (e.g. maintained counts), when this filter allows it. */
  count?: (filter: Filter<Document>, caller: Caller) => (() => Promise<number>) | undefined;
  sort?: Sort;
  scopes: { read: readonly string[]; create: readonly string[]; update: readonly string[]; destroy: readonly string[] };
  operations?: Operation[];
  /** Lists that the standard declares as plain arrays instead of the paginated envelope. */
  plainList?: boolean;
  /** The list takes `pageSize` (1 to 100; default 100), as its file declares (Zaken 1.7's notities). */
  pageSize?: boolean;
  /** Notifications: the kanaal topic, the main object URL and the kenmerken of a stored resource. */
  kanaal?: string;
  hoofdObject?(doc: D, url: string): string;
  kenmerken?(doc: D): Record<string, string>;
  /** How the audit trail names an object (`resourceWeergave`); default its URL. */
  weergave?(doc: D): string;
  /**
   * Business rules and derived fields; the returned document is what is stored. `data` is parsed, once, with the
   * input schema of the write's version (a create's body, a PUT's, a PATCH's merged onto the stored object, an
   * imported object): see Resource.parseInput.
   */
  prepare?(data: I, ctx: WriteContext, current?: Stored<D>): Promise<D>;
  /** Runs after a create or update is stored (keeping other documents in step with this one). */
  afterWrite?(stored: Stored<D>, ctx: WriteContext, previous?: Stored<D>): Promise<void>;
  /**
   * What an imported object keeps of its source beyond its input (read-only fields the platform would derive
   * otherwise: a zaak's einddatum, a zaakinformatieobject's registratiedatum), from the source's representation with
   * its URLs already ours.
   */
  behouden?(source: JsonObject): Partial<D>;
  /**
   * The document an imported object is stored as, where the rules and `behouden` do not make it (a document's
   * versions); null when the object is kept otherwise and the stored document stays as it is (an earlier version).
   */
  historisch?(source: JsonObject, ctx: WriteContext, current?: Stored<D>): Promise<D | null>;
  /**
   * Whether afterWrite has anything to do for this new document (default: always); when not, a create skips it (an
   * imported one too).
   */
  followsCreate?(doc: D, ctx: WriteContext): boolean;
  beforeDestroy?(current: Stored<D>, ctx: WriteContext): Promise<void>;
  afterDestroy?(current: Stored<D>, ctx: WriteContext): Promise<void>;
  /** Whether the caller may see this object at all (type-level authorisations); hidden objects are 403 on detail. */
  visible?(doc: Stored<D>, caller: Caller): boolean;
  /**
   * Objects that do not exist for this caller (404 on every path, never in a list), as a condition of the query
   * (Autorisaties 1.1: documents not ready for publication). Reads with such a condition bypass the read cache.
   */
  callerFilter?: (caller: Caller) => Filter<Document>;
  /** Query parameters of the detail GET (what they give is `RQ`), and the condition they put on the object itself (404 when unmet). */
  readQuery?: z.ZodObject & z.ZodType<RQ>;
  readFilter?(query: RQ): Filter<Document>;
  /**
   * Extra response fields computed at read time (e.g. reverse relations); `query` is the GET's (detail or paginated
   * list), `req` the request being answered (for its API version).
   */
  render?(doc: Stored<D>, url: string, query?: Q | RQ, req?: FastifyRequest): Promise<R> | R;
  /** The response as the request's API version shows it (fields of other versions left out); default as it is. */
  present?(body: Answer<D, R>, req?: FastifyRequest): Answer<D, R>;
  /** What differs in the component's other API versions (see ComponentDef.versions), by version. */
  variants?: Readonly<Record<string, ResourceVariant<Q, RQ>>>;
  /** Operations served only from a later API version on, by the version that brought them (see RouteSpec.since). */
  since?: Partial<Record<Operation, string>>;
  /** Fills in the `_expand` of the answered objects (a list page, a detail) as the query's `expand` asks. */
  expand?(bodies: Answer<D, R>[], query: Q | RQ, req: FastifyRequest): Promise<void>;
  /**
   * Its answer is its stored object's alone (with the version and the base URL): `render` reads nothing else, not
   * the query, the caller or other objects. Its pages may then be written from texts kept by the render cache.
   */
  renderCache?: boolean;
  /** With renderCache: whether this object's answer is its own alone (default: every object's is). */
  rendersAlone?(doc: Stored<D>): boolean;
}

/**
 * What a resource's document declares where the standard's file differs from what the server takes: the body of its
 * writes (`update`: of PUT and PATCH, where it differs from the create's), its list and detail parameters, its shape
 * (`created`: of the create's answer, where it differs).
 */
export interface DeclaredResource {
  input?: z.ZodObject;
  update?: z.ZodObject;
  query?: z.ZodObject;
  readQuery?: z.ZodObject;
  schema?: z.ZodType;
  created?: z.ZodType;
}

/**
 * A resource in another API version of its component: its shape, list filters, detail parameters and input there
 * (its filters and detail parameters give what the default version's give: `Q` and `RQ`, its fields or fewer).
 */
export interface ResourceVariant<Q = AnyQuery, RQ = AnyQuery> {
  schema?: z.ZodType;
  /** What its list and detail answers show, where that differs from `schema` (the resource with its `_expand`). */
  expanded?: z.ZodType;
  query?: z.ZodObject & z.ZodType<Q>;
  readQuery?: z.ZodObject & z.ZodType<RQ>;
  input?: z.ZodObject;
  /** As ResourceDef.declared, in this version. */
  declared?: DeclaredResource;
}

let lastAudit = 0;
/** The time of an audit entry: strictly increasing within a process, so a trail sorted by time keeps the write order. */
function auditClock(): string {
  lastAudit = Math.max(Date.now(), lastAudit + 1);
  return new Date(lastAudit).toISOString();
}

/** A ZGW resource with its standard operations, notifications and OpenAPI entries. */
export class Resource<D extends Document, I = z.output<z.ZodObject>, Q = AnyQuery, RQ = AnyQuery, R extends object = object> {
  readonly store: Store<D>;
  /** What the URLs of its objects start with (see uuidOf). */
  private readonly prefix: string;

  constructor(
    readonly api: ComponentApi,
    readonly def: ResourceDef<D, I, Q, RQ, R>,
  ) {
    this.store = api.store<D>(def.storeAs ?? def.collection);
    this.prefix = api.deps.urls.prefix(api.def.name, def.collection);
    api.resources.push(this);
    if (api.def.audit) api.deps.reads?.know(api.def.name, def.collection, api.def.audit.bron, def.resource);
    const ops = new Set(def.operations ?? ALL_OPERATIONS);
    if (ops.has('list')) this.listRoute();
    if (ops.has('create')) this.createRoute();
    if (ops.has('read')) this.readRoute();
    if (ops.has('update')) this.updateRoute(false);
    if (ops.has('partial_update')) this.updateRoute(true);
    if (ops.has('destroy')) this.destroyRoute();
  }

  url(uuid: string): string {
    return this.api.url(this.def.collection, uuid);
  }

  /** The uuid of a URL of this resource on this host, or undefined (it runs for every link an expansion follows). */
  uuidOf(url: string): string | undefined {
    return this.api.deps.urls.uuidIn(url, this.prefix);
  }

  async toApi(doc: Stored<D>, query?: Q | RQ, req?: FastifyRequest): Promise<Answer<D, R>> {
    const url = this.url(doc._id);
    const extra = this.def.render ? await this.def.render(doc, url, query, req) : undefined;
    // (copyPublic copies the fields PublicFields names)
    const body = Object.assign(copyPublic(doc, { url }) as PublicFields<D> & { url: string }, extra) as Answer<D, R>;
    return this.def.present ? this.def.present(body, req) : body;
  }

  /**
   * Stored documents (their bytes: Store.pageStored) as this resource shows them to `req`, each as its JSON text;
   * kept by the render cache (see RenderCache) when ResourceDef.renderCache says its answer is the object's alone.
   */
  async renderStored(stored: Buffer[], req?: FastifyRequest): Promise<Rendered[]> {
    const { def } = this;
    const { renders } = this.api.deps;
    // (what a dry run of an import would store is no one's: never kept)
    const scope =
      def.renderCache && renders.enabled && !inProef() ? `${currentTenant() ?? ''}\0${this.name}\0${req ? this.api.version(req) : ''}` : undefined;
    const render = (doc: Document) => this.toApi(doc as Stored<D>, undefined, req);
    const keeps = def.rendersAlone ? (doc: Document) => def.rendersAlone!(doc as Stored<D>) : undefined;
    const out: Rendered[] = [];
    const misses: Promise<void>[] = [];
    for (let i = 0; i < stored.length; i++) {
      const b = stored[i]!;
      const id = scope === undefined ? undefined : storedId(b);
      const kept = renders.kept(scope, id, b);
      if (kept) out[i] = kept;
      else misses.push(renders.renderAndKeep(scope, id, b, render, keeps).then((r) => void (out[i] = r)));
    }
    if (misses.length) await Promise.all(misses);
    return out;
  }

  /** The stored resource a URL points at, or undefined. */
  async byUrl(url: string): Promise<Stored<D> | undefined> {
    const uuid = this.uuidOf(url);
    return uuid ? ((await this.store.get(uuid)) ?? undefined) : undefined;
  }

  /** The condition callerFilter puts on this caller's queries ({} for none). */
  callerCondition(caller: Caller | undefined): Filter<Document> {
    return caller && this.def.callerFilter ? this.def.callerFilter(caller) : {};
  }

  /** The object by uuid; with a caller, only if it exists for that caller (callerFilter) and is visible (else 403). */
  async getOr404(uuid: string, caller?: Caller, filter: Filter<Document> = {}): Promise<Stored<D>> {
    const condition = { ...filter, ...this.callerCondition(caller) };
    // (a read by _id alone goes to the store with those of concurrent requests: Store.get)
    const doc = Object.keys(condition).length
      ? await this.store.findOne({ _id: uuid, ...condition } as Filter<Document>)
      : await this.store.get(uuid);
    if (!doc) throw ZgwError.notFound(`${this.def.resource} ${uuid} bestaat niet.`);
    if (caller) this.mustBeVisible(doc, caller);
    return doc;
  }

  private mustBeVisible(doc: Stored<D>, caller: Caller): void {
    if (this.def.visible && !this.def.visible(doc, caller)) throw ZgwError.forbidden();
  }

  notificatie(doc: D, uuid: string, actie: string): Notificatie {
    const url = this.url(uuid);
    return {
      kanaal: this.def.kanaal!,
      hoofdObject: this.def.hoofdObject ? this.def.hoofdObject(doc, url) : url,
      resource: this.def.resource,
      resourceUrl: url,
      actie,
      aanmaakdatum: new Date().toISOString(),
      kenmerken: this.def.kenmerken ? this.def.kenmerken(doc) : {},
    };
  }

  /** The events of a write: its notification and, in an audited component, its audit trail entry. */
  events(doc: D, uuid: string, actie: WriteActie, audit?: AuditEntry): OutboxEvent[] {
    const events: OutboxEvent[] = [];
    // (history is not news: the registration import notifies no abonnement)
    if (this.def.kanaal && !historieScope.getStore()) {
      const n = this.notificatie(doc, uuid, actie);
      events.push(newEvent(this.def.kanaal, n.hoofdObject, n));
    }
    if (audit) events.push({ ...newEvent(AUDIT_TOPIC, audit.hoofdObject, audit), id: audit.uuid });
    return events;
  }

  /** The audit trail entry of a write (the standard's AuditTrail), or undefined when the component is not audited. */
  auditEntry(ctx: WriteContext, actie: WriteActie, uuid: string, oud?: D, nieuw?: D): AuditEntry | undefined {
    const audit = this.api.def.audit;
    if (!audit) return undefined;
    const url = this.url(uuid);
    const doc = (nieuw ?? oud)!;
    const view = (d?: D) => (d ? { url, ...publicFields(d as Stored<D>) } : null);
    return {
      uuid: randomUUID(),
      bron: audit.bron,
      applicatieId: ctx.caller.clientId,
      applicatieWeergave: ctx.caller.rights.label ?? ctx.caller.clientId,
      gebruikersId: ctx.caller.userId,
      gebruikersWeergave: ctx.caller.userRepresentation,
      actie,
      actieWeergave: AUDIT_ACTIE[actie].weergave,
      resultaat: AUDIT_ACTIE[actie].resultaat,
      hoofdObject: this.def.hoofdObject ? this.def.hoofdObject(doc, url) : url,
      resource: this.def.resource,
      resourceUrl: url,
      toelichting: ctx.toelichting ?? '',
      resourceWeergave: this.def.weergave?.(doc) ?? url,
      aanmaakdatum: auditClock(),
      wijzigingen: { oud: view(oud), nieuw: view(nieuw) },
    };
  }

  /**
   * Stores the audit entry of a write that just landed, so the writer sees it in the audit trail at once. The same
   * entry travels through the outbox to the audit service, which stores it only if absent: never twice. A failure
   * here loses nothing (the outbox has it), so it is logged, not raised.
   */
  private async keepAudit(entry: AuditEntry | undefined): Promise<void> {
    if (!entry) return;
    try {
      await this.storeAudit(entry);
    } catch (err) {
      this.api.deps.log.warn({ err, entry: entry.uuid }, 'audit entry not stored at once; the audit service stores it from the outbox');
    }
  }

  /** Stores an audit entry unless one with its uuid is there (the writes of concurrent requests go together). */
  private storeAudit(entry: AuditEntry): Promise<void> {
    const op = { updateOne: { filter: { _id: entry.uuid }, update: { $setOnInsert: entry }, upsert: true } };
    return batcherOf(this.api.deps.db, AUDITTRAIL_COLLECTION).write(entry.uuid, op, laterWins);
  }

  /**
   * Stores a new document with its create notification, then runs afterWrite. Until afterWrite is done the document
   * is marked (`_follow`, see settle), so a process that stops in between leaves nothing undone.
   */
  async insert(doc: D, ctx: WriteContext): Promise<Stored<D>> {
    const audit = this.auditEntry(ctx, 'create', ctx.uuid, undefined, doc);
    return this.create(ctx.uuid, doc, ctx, this.events(doc, ctx.uuid, 'create', audit), audit);
  }

  /** A new document stored under `uuid` (marked until its afterWrite is done, where it has one: see insert). */
  private async create(uuid: string, doc: D, ctx: WriteContext, events: OutboxEvent[], audit: AuditEntry | undefined): Promise<Stored<D>> {
    const follows = !!this.def.afterWrite && (this.def.followsCreate?.(doc, ctx) ?? true);
    const marked = follows ? ({ ...doc, _follow: new Date() } as D) : doc;
    const stored = await this.store.insert(uuid, marked, events, () => this.keepAudit(audit));
    if (follows) await this.follow(stored, ctx);
    return stored;
  }

  /** Stores a changed document with its notification and audit entry; null when it was deleted meanwhile. */
  async update(current: Stored<D>, doc: D, ctx: WriteContext, actie: 'update' | 'partial_update'): Promise<Stored<D> | null> {
    const audit = this.auditEntry(ctx, actie, current._id, current, doc);
    return this.store.replace(current, doc, this.events(doc, current._id, actie, audit), () => this.keepAudit(audit));
  }

  /** Deletes a document with its notification and audit entry; false when it was already gone. */
  async destroy(current: Stored<D>, ctx: WriteContext): Promise<boolean> {
    const audit = this.auditEntry(ctx, 'destroy', current._id, current);
    return this.store.remove(current, this.events(current as D, current._id, 'destroy', audit), () => this.keepAudit(audit));
  }

  /**
   * Stores an object of another registration as it was there (the registration import): its UUID, its fields and the
   * dates its source gave it, through the resource's own rules in history mode (WriteContext.historie). No
   * notification goes out (old facts are not news to abonnementen); the audit trail gets one entry saying it was
   * imported, from where and by which run (once per run, also when a page is done again). An object already here from
   * the same source in the same tenant is replaced (a second run brings changes, never a copy); a UUID taken otherwise
   * (in any tenant) is left alone: `bezet`.
   */
  async importeer(source: JsonObject, uuid: string, ctx: WriteContext, vooraf?: Gehouden): Promise<ImportUitkomst> {
    const herkomst = ctx.historie;
    if (!herkomst) throw new Error('importeer: alleen binnen alsHistorie');
    // whether the UUID is held, and by whom (UUIDs are global), and what is there: read at platform level, for a
    // batch at once (gehouden); each read serves once (a later object under the same UUID reads what this one wrote)
    const gelezen = vooraf?.get(uuid);
    vooraf?.delete(uuid);
    const held = gelezen !== undefined ? gelezen : await platformDb(this.api.deps.db).collection<RawDoc>(this.store.name).findOne({ _id: uuid });
    const mine = held && !held._tombstone && held[TENANT_FIELD] === ctx.caller.tenant && held._herkomst === herkomst.bron;
    const current = mine ? (held as Stored<D>) : null;
    if (held && !current) return 'bezet';
    // an object that cannot change once made (a status, a klantcontact) is there already as it is; a crash may have
    // left its follow-up writes undone (the page is retried): done now
    if (current && !this.def.scopes.update.length) {
      if (current._follow && !herkomst.proef) await this.follow(current, ctx);
      return 'bijgewerkt';
    }
    const made = this.def.historisch
      ? await this.def.historisch(source, ctx, current ?? undefined)
      : { ...(await this.prepare(this.parseInput(source, ctx), ctx, current ?? undefined)), ...this.def.behouden?.(source) };
    if (!made) return current ? 'bijgewerkt' : 'nieuw';
    const doc = { ...made, _herkomst: herkomst.bron } as D;
    if (herkomst.proef) {
      await this.store.proefBewaar(herkomst.run, uuid, doc);
      return current ? 'bijgewerkt' : 'nieuw';
    }
    // The audit entry is stored first, straight into the trail (it notifies nobody, so nothing goes through the
    // outbox), under a UUID of the run and the object: a page done again after a crash in between stores it once.
    const audit = this.auditEntry(ctx, 'create', uuid, current ?? undefined, doc);
    if (audit) {
      Object.assign(audit, {
        uuid: nameUuid(`import ${herkomst.run} ${this.store.name} ${uuid}`),
        actieWeergave: 'Object geïmporteerd',
        toelichting: `Geïmporteerd uit ${herkomst.bron} (import ${herkomst.run})`,
      });
      await this.storeAudit(audit);
    }
    if (!current) {
      await this.create(uuid, doc, ctx, [], undefined);
      return 'nieuw';
    }
    // a create whose follow-up writes a crash left undone (its mark stays until they are done) is finished as a create
    const unfinished = current._follow !== undefined;
    const stored = await this.store.replace(current, doc, []);
    if (stored) await (unfinished ? this.follow(stored, ctx) : this.def.afterWrite?.(stored, ctx, current));
    return 'bijgewerkt';
  }

  /**
   * What is held under `uuids` at platform level (in any tenant), read at once for a batch of the registration import:
   * each UUID with its document, or null where none is.
   */
  async gehouden(uuids: string[]): Promise<Gehouden> {
    const held = new Map<string, RawDoc | null>(uuids.map((u) => [u, null]));
    const docs = await platformDb(this.api.deps.db)
      .collection<RawDoc>(this.store.name)
      .find({ _id: { $in: [...held.keys()] } })
      .toArray();
    for (const doc of docs) held.set(doc._id, doc);
    return held;
  }

  /**
   * Runs afterWrite of a created document, then clears its mark (the marks of concurrent writes go together: one
   * round trip clears many).
   */
  private async follow(stored: Stored<D>, ctx: WriteContext): Promise<void> {
    if (!this.def.afterWrite) return;
    await this.def.afterWrite(stored, ctx);
    await this.store.followUp({ _id: stored._id }, { $unset: { _follow: '' } });
  }

  /**
   * Finishes creates whose process stopped between storing the document and updating the documents that follow it
   * (a part's link on its zaak, a zaak's status and einddatum, ...): every afterWrite is idempotent, so it is run
   * again for each document still marked after `graceMs` (a create in progress elsewhere is done well within that).
   */
  async settle(graceMs: number): Promise<number> {
    if (!this.def.afterWrite) return 0;
    // At platform level (every tenant's unfinished creates); each is finished within its own tenant.
    const marked = await this.store.find({ _follow: { $lt: new Date(Date.now() - graceMs) } }, { sort: { _follow: 1 }, limit: 100 });
    for (const doc of marked) {
      const tenant = String((doc as Document)[TENANT_FIELD]);
      const finish = () => this.follow(doc, this.ctx(Caller.system(tenant), doc._id));
      // an imported object's follow-up writes are history too (see importeer)
      const bron = (doc as Document)._herkomst as string | undefined;
      await inTenant(tenant, () => (bron ? alsHistorie({ run: 'afronding', bron }, finish) : finish()));
    }
    return marked.length;
  }

  ctx(caller: Caller, uuid: string, req?: FastifyRequest): WriteContext {
    const toelichting = req?.headers['x-audit-toelichting'];
    return {
      caller,
      api: this.api,
      uuid,
      url: this.url(uuid),
      toelichting: Array.isArray(toelichting) ? toelichting.join(', ') : toelichting,
      version: req ? this.api.version(req) : this.api.defaultVersion,
      historie: historieScope.getStore(),
    };
  }

  private async prepare(data: I, ctx: WriteContext, current?: Stored<D>): Promise<D> {
    return this.def.prepare ? this.def.prepare(data, ctx, current) : (data as unknown as D);
  }

  /** The input schema of a write in `version`: the version's own where it has one. */
  inputIn(version: string): z.ZodObject {
    return this.def.variants?.[version]?.input ?? this.def.input;
  }

  /**
   * `data` as the input of a write in ctx's version, parsed once: a PATCH's body merged onto the stored object, an
   * imported object, an object of an exchanged catalogus. (The one place the version's schema is taken as `I`: each
   * resource declares `I` as what its input schemas give.)
   */
  parseInput(data: unknown, ctx: WriteContext): I {
    // (an imported object is read as its source means it: parseLiberal)
    return (ctx.historie ? parseLiberal : parseOrThrow)(this.inputIn(ctx.version), data) as I;
  }

  /** The resource as its document shows it (see ResourceDef.declared). */
  private get shown(): z.ZodType {
    return this.def.declared?.schema ?? this.def.schema;
  }

  /** The resource's name in operationIds. */
  private get name(): string {
    return this.def.operationName ?? this.def.resource;
  }

  /** The header parameters the standard declares on one of the resource's operations (see RouteSpec). */
  headersOf(op: Operation): Pick<RouteSpec<z.ZodType, z.ZodType, z.ZodType>, 'crs' | 'auditHeaders'> {
    const audit = this.def.auditHeaders && op !== 'list' && op !== 'read' ? { auditHeaders: this.def.auditHeaders.includes(op) } : {};
    return { crs: this.def.crs, ...audit };
  }

  /** The route variants of one operation in the component's other versions (see ResourceDef.variants). */
  private variants(make: (v: ResourceVariant<Q, RQ>) => RouteVariant): Record<string, RouteVariant> | undefined {
    const all = this.def.variants;
    return all && Object.fromEntries(Object.entries(all).map(([version, v]) => [version, make(v)]));
  }

  /** The resource as a version's document shows it. */
  private shownIn(v: ResourceVariant<Q, RQ>): z.ZodType | undefined {
    return v.declared?.schema ?? v.schema;
  }

  /** The resource as a version's list and detail answer it. */
  private readIn(v: ResourceVariant<Q, RQ>): z.ZodType | undefined {
    return v.expanded ?? this.shownIn(v);
  }

  /**
   * The route fields every operation of the resource shares: its header parameters, the version it came with, and the
   * operationId its file gives it where that differs from the component's rule.
   */
  private common(op: Operation): Pick<RouteSpec<z.ZodType, z.ZodType, z.ZodType>, 'crs' | 'auditHeaders' | 'since' | 'operationIds'> {
    const own = this.def.operationIds === 'read' && { read: `${this.name}_read`, destroy: `${this.name}_delete` }[op as 'read' | 'destroy'];
    const operationIds = own ? Object.fromEntries([...this.api.docs.keys()].map((v) => [v, own])) : undefined;
    return { ...this.headersOf(op), since: this.def.since?.[op], operationIds };
  }

  private listRoute(): void {
    const { def } = this;
    const sized = def.pageSize ? { pageSize: z.coerce.number().int().min(1).max(PAGE_SIZE).optional() } : {};
    const paged = (q: z.ZodObject) => q.extend(def.plainList ? {} : { ...PageQuery.shape, ...sized });
    const query = paged(def.query ?? z.object({}));
    const page = (shown: z.ZodType) => (def.plainList ? z.array(shown) : pageOf(shown));
    this.api.route({
      method: 'GET',
      path: `/${def.collection}`,
      operationId: `${this.name}_list`,
      ...this.common('list'),
      declared: { query: def.declared?.query && paged(def.declared.query) },
      variants: this.variants((v) => ({
        query: v.query && paged(v.query),
        response: this.readIn(v) && page(this.readIn(v)!),
        declared: { query: v.declared?.query && paged(v.declared.query) },
      })),
      summary: `Alle ${def.collection} opvragen.`,
      scopes: def.scopes.read,
      query,
      response: page(this.shown),
      handler: async ({ req, caller, query }) => {
        // (the route parsed the query with the version's list query and the page's fields: see ResourceDef's Q)
        const q = query as Q & PageFields;
        const filter = def.filter ? await def.filter(q, caller) : {};
        if (def.plainList) {
          const items = await this.store.find(filter, { sort: def.sort });
          const bodies = await Promise.all(items.filter((d) => !def.visible || def.visible(d, caller)).map((d) => this.toApi(d, q, req)));
          await def.expand?.(bodies, q, req);
          return bodies;
        }
        const { page: rawPage, cursor } = q;
        const page = parsePage(rawPage);
        const size = q.pageSize ?? PAGE_SIZE;
        return this.api.cached(this.api.requestKey(req), async () => {
          const { count, items, ...cont } = await this.store.page(filter, {
            page,
            size,
            sort: def.sort,
            cursor,
            count: def.count?.(filter, caller),
          });
          const requestUrl = `${this.api.deps.urls.base}${req.url}`;
          const bodies = await Promise.all(items.map((d) => this.toApi(d, q, req)));
          await def.expand?.(bodies, q, req);
          return envelope(requestUrl, page, count, bodies, cont, size);
        });
      },
    });
  }

  private createRoute(): void {
    const { def } = this;
    this.api.route({
      method: 'POST',
      path: `/${def.collection}`,
      operationId: `${this.name}_create`,
      ...this.common('create'),
      declared: { body: def.declared?.input },
      variants: this.variants((v) => ({
        body: v.input,
        response: this.shownIn(v),
        declared: { body: v.declared?.input, response: v.declared?.created },
      })),
      summary: `Maak een ${def.resource} aan.`,
      scopes: def.scopes.create,
      body: def.input,
      response: this.shown,
      handler: async ({ req, caller, body }) => {
        const uuid = randomUUID();
        const ctx = this.ctx(caller, uuid, req);
        // (the route parsed the body with the version's input schema: see inputIn)
        const doc = await this.prepare(body as I, ctx);
        return this.toApi(await this.insert(doc, ctx), undefined, req);
      },
    });
  }

  private readRoute(): void {
    const { def } = this;
    this.api.route({
      method: 'GET',
      path: `/${def.collection}/:uuid`,
      operationId: `${this.name}_retrieve`,
      ...this.common('read'),
      declared: { query: def.declared?.readQuery },
      variants: this.variants((v) => ({
        query: v.readQuery,
        response: this.readIn(v),
        declared: { query: v.declared?.readQuery },
      })),
      summary: `Een specifieke ${def.resource} opvragen.`,
      scopes: def.scopes.read,
      params: UuidParams,
      query: def.readQuery,
      response: this.shown,
      etag: true,
      head: def.head ?? this.api.def.heads,
      handler: async ({ req, caller, params, query }) => {
        // (parsed with the version's readQuery: see ResourceDef's RQ)
        const q = (query ?? {}) as RQ;
        const own = this.callerCondition(caller);
        const load = async () => {
          const stored = await this.getOr404(params.uuid, undefined, { ...def.readFilter?.(q), ...own });
          const body = await this.toApi(stored, q, req);
          await def.expand?.([body], q, req);
          return { doc: stored, body };
        };
        const { doc, body } = Object.keys(own).length ? await load() : await this.api.cached(this.api.requestKey(req), load);
        this.mustBeVisible(doc, caller);
        return body;
      },
    });
  }

  private updateRoute(partial: boolean): void {
    const { def } = this;
    // A PATCH body is parsed once, merged onto the stored object (parseInput); only a PATCH with rules of its own
    // (patchInput) has its body parsed first. The document declares the partial input either way.
    const parsedFirst = !partial || !!def.patchInput;
    const body = partial ? (def.patchInput ?? def.input.partial()) : def.input;
    const whole = !partial || this.api.def.wholePatchBodies;
    const declaredBody = (input: z.ZodObject | undefined, parsed: z.ZodObject | undefined) =>
      (whole ? input : input?.partial()) ?? (parsedFirst ? undefined : parsed);
    this.api.route({
      method: partial ? 'PATCH' : 'PUT',
      path: `/${def.collection}/:uuid`,
      operationId: `${this.name}_${partial ? 'partial_update' : 'update'}`,
      ...this.common(partial ? 'partial_update' : 'update'),
      declared: { body: declaredBody(def.declared?.update ?? def.declared?.input ?? (whole ? def.input : undefined), body) },
      variants: this.variants((v) => {
        const own = v.input && (partial ? v.input.partial() : v.input);
        return {
          body: parsedFirst ? own : undefined,
          response: this.shownIn(v),
          declared: { body: declaredBody(v.declared?.update ?? v.declared?.input ?? (whole ? v.input : undefined), own) },
        };
      }),
      summary: `Werk een ${def.resource} ${partial ? 'deels' : 'in zijn geheel'} bij.`,
      scopes: def.scopes.update,
      params: UuidParams,
      body: parsedFirst ? body : undefined,
      response: this.shown,
      handler: async ({ req, caller, params, body }) => {
        const data = jsonObject(body);
        const current = await this.getOr404(params.uuid, caller);
        const ctx = this.ctx(caller, current._id, req);
        const input = partial ? this.parseInput({ ...publicFields(current), ...data }, ctx) : (data as I);
        const doc = await this.prepare(input, ctx, current);
        const stored = await this.update(current, doc, ctx, partial ? 'partial_update' : 'update');
        if (!stored) throw ZgwError.notFound(`${def.resource} ${params.uuid} bestaat niet meer.`);
        await def.afterWrite?.(stored, ctx, current);
        return this.toApi(stored, undefined, req);
      },
    });
  }

  private destroyRoute(): void {
    const { def } = this;
    this.api.route({
      method: 'DELETE',
      path: `/${def.collection}/:uuid`,
      operationId: `${this.name}_destroy`,
      ...this.common('destroy'),
      summary: `Verwijder een ${def.resource}.`,
      scopes: def.scopes.destroy,
      params: UuidParams,
      handler: async ({ req, caller, params }) => {
        const current = await this.getOr404(params.uuid, caller);
        const ctx = this.ctx(caller, current._id, req);
        await def.beforeDestroy?.(current, ctx);
        await this.destroy(current, ctx);
        await def.afterDestroy?.(current, ctx);
        return undefined;
      },
    });
  }
}
