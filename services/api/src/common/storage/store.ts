import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  type Collection,
  type Db,
  type Document,
  type Filter,
  type FindCursor,
  type FindOptions,
  type IndexSpecification,
  type Long,
  type Sort,
  type UpdateFilter,
} from 'mongodb';
import { currentTenant, currentTrace, IMPORT_PROEF, platformDb, scopedFilter, TENANT_FIELD, tenantIndexKey, type OutboxEvent } from '@zgw/shared';
import { ReadBatcher } from './read-batch';
import { storedFields } from './stored-bytes';
import { batcherOf, incrementsAdd, laterWins } from './write-batch';
import { afterKey, decodeCursor, encodeCursor, keyOf, PageAnchors, querySignature, reverse, sortFields, type Cursor, type SortKey } from './keyset';

/**
 * One MongoDB collection of a ZGW resource. Every write carries its domain events inside the same document write
 * (`_outbox`), so a crash can never separate a change from its notification; the relay publishes and removes them.
 * A delete replaces the document by a tombstone holding only the outbox until the relay has published it.
 * Stored documents are the API shape minus `url`, keyed by `_id` = uuid; fields starting with `_` are internal.
 * (A type, not an interface: a stored document is then also a mongodb `Document`, which code serving any resource takes.)
 */
export type StoredMeta = {
  _id: string;
  _created: Date;
  /** Set while the writes that follow a create (Resource.afterWrite) are not done. */
  _follow?: Date;
  _outbox?: OutboxEvent[];
  _pending?: true;
  _tombstone?: true;
};

export type Stored<T> = T & StoredMeta;

/** The most documents a read without a limit takes a batch (see readAll). */
export const READ_BATCH = 10_000;

/**
 * Every document of a cursor, READ_BATCH a batch. Unasked, a batch holds up to 16 MB, which is more than 120,000 small
 * (projected) documents, and the driver's toArray spreads a batch into the arguments of one call: past that many it
 * throws a RangeError.
 */
export function readAll<T>(cursor: FindCursor<T>): Promise<T[]> {
  return cursor.batchSize(READ_BATCH).toArray();
}

/** What a dry run of the registration import would have stored (IMPORT_PROEF), by run, collection and UUID. */
interface ProefDoc {
  _id: string;
  run: string;
  doc: Document;
}

const proefScope = new AsyncLocalStorage<string>();

/**
 * Runs `fn` within the dry run `run` of an import: a document read by UUID that is not here is looked for among what
 * the run would have stored (Store.proefBewaar), so the rules of a zaak's parts meet the zaak the run would bring.
 */
export function alsProef<T>(run: string, fn: () => Promise<T>): Promise<T> {
  return proefScope.run(run, fn);
}

/** Whether this is a dry run of an import (its reads pass the read caches: see alsProef). */
export const inProef = (): boolean => proefScope.getStore() !== undefined;

/**
 * The collection of outbox pointers: one per document with unpublished events, written right after the document's
 * write (so the relay, when it finds a pointer, finds the events it points at) and removed by the relay once it has
 * published them. The relay finds its work here instead of scanning every resource collection. `nonce` changes with
 * every write, so the relay never removes a pointer for events that arrived while it was publishing. A process that
 * stops between a write and its pointer leaves events without one: the relay's periodic scan of `_pending` finds them.
 */
export const OUTBOX_POINTERS = 'outbox';

export interface OutboxPointer {
  _id: string; // `<collection>/<uuid>`
  collection: string;
  doc: string;
  nonce: string;
  at: Date;
}

/** Matches live resources, never tombstones: every read of a resource collection includes it. */
export const LIVE = { _tombstone: { $exists: false } } as const;

/**
 * A query of a resource collection: the driver's `Filter<Document>` (what the filter helpers build) or one on the
 * stored shape with its string `_id`.
 */
export type Query = Filter<Document> | Filter<RawDoc>;

/** A query of live documents only. */
export function live(filter: Query): Filter<RawDoc> {
  return { ...filter, ...LIVE } as Filter<RawDoc>;
}

/** A maintained count: live documents whose countBy fields hold `values`. */
export interface BucketCount {
  _id: string;
  values: unknown[];
  n: number;
}

const bucketId = (values: unknown[]): string => JSON.stringify(values);

/** The documents counted in these buckets (a count an adjustment left below zero counts as none). */
const bucketSum = (buckets: Pick<BucketCount, 'n'>[]): number => buckets.reduce((n, d) => n + Math.max(0, d.n), 0);

/** An index a resource declares; a partial one holds only the documents its filter matches. */
export interface IndexDef {
  key: IndexSpecification;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
}

export interface ListOptions {
  skip: number;
  limit: number;
  sort?: Sort;
}

/** One page of a list: `page` numbers from 1; `cursor` is the continuation a `next`/`previous` link carried. */
export interface PageRequest {
  page: number;
  size: number;
  sort?: Sort;
  cursor?: string;
  /** The count when the caller knows it without counting (e.g. maintained per authorisation bucket). */
  count?: () => Promise<number>;
}

export interface PageResult<T> {
  count: number;
  items: T[];
  /** Continuations for the neighbouring pages (keys of the last and first document). */
  next?: string;
  previous?: string;
}

const DEFAULT_SORT: Sort = { _created: 1, _id: 1 };

/** How a page reads its documents (decoded, or as stored bytes) and sees one's fields (for its sort keys). */
interface Rows<R> {
  find(filter: Filter<Document>, opts: Partial<ListOptions>): Promise<R[]>;
  doc(row: R): Document;
}

/**
 * A stored document as the follow-up writes address it: by its string `_id`, any other field by name (dotted paths,
 * the platform's own `_` fields, array operators) without the resource's type.
 */
export type RawDoc = { _id: string } & Document;

/** {$pull: {<field>: <value>}} on a raw document (the driver's types take a $pull only on a field they know as an array). */
export function pull(field: string, value: unknown): UpdateFilter<RawDoc> {
  return { $pull: { [field]: value } } as UpdateFilter<RawDoc>;
}

/** MongoDB's code for dropping an index that is not there. */
const INDEX_NOT_FOUND = 27;

export class Store<T extends Document> {
  /**
   * The collection, for writes and reads by field name that the resource's type does not describe. It is not typed
   * by the resource: what this store returns is typed at its methods, so that a store of a precise document type is
   * also a store of the view another component reads of it (common/platform/links.ts).
   */
  readonly raw: Collection<RawDoc>;
  private readonly pointers: Collection<OutboxPointer>;
  /** The largest skip a list may use; deeper pages seek by key (see keyset.ts). */
  maxSkip = 10_000;
  private readonly anchors = new PageAnchors();
  /** Walks to a page under way, by query and page: requests for that page meanwhile wait for the same walk. */
  private readonly walks = new Map<string, Promise<SortKey | undefined | null>>();
  /** Maintained counts per bucket (see countBy), or undefined. */
  private counts?: { fields: string[]; coll: Collection<BucketCount> };

  private readonly proef: Collection<ProefDoc>;
  private readonly reads: ReadBatcher;

  constructor(
    db: Db,
    readonly name: string,
    private readonly onWrite: () => void,
  ) {
    this.raw = db.collection<RawDoc>(name);
    this.reads = new ReadBatcher(this.raw, LIVE);
    this.pointers = db.collection<OutboxPointer>(OUTBOX_POINTERS);
    this.proef = platformDb(db).collection<ProefDoc>(IMPORT_PROEF);
  }

  /**
   * Keeps the number of live documents per combination of `fields` (e.g. zaaktype and vertrouwelijkheid) in
   * `<name>_counts`, so a list restricted to some of those buckets is counted by reading a few small documents
   * instead of walking its index. Every insert, bucket change and delete through this store adjusts them; see
   * `recount` for repairing them after a crash between the write and the adjustment.
   */
  countBy(fields: string[]): this {
    // Buckets are a tenant's: its counts never mix with another's, and bucket ids stay unique across tenants.
    this.counts = { fields: [TENANT_FIELD, ...fields], coll: this.raw.db.collection<BucketCount>(`${this.name}_counts`) };
    return this;
  }

  async ensureIndexes(indexes: IndexDef[] = []): Promise<void> {
    await this.raw.createIndex({ _pending: 1 }, { sparse: true });
    await this.raw.createIndex({ _tombstone: 1 }, { sparse: true });
    // Creates whose follow-up writes are not done yet (Resource.settle).
    await this.raw.createIndex({ _follow: 1 }, { sparse: true });
    // The relay reads pointers oldest first for its collections (`$in` with a sort: the sort field leads).
    await this.pointers.createIndex({ at: 1, collection: 1 });
    await this.raw.createIndex({ _created: 1, _id: 1 });
    // (a tenant's buckets, for counting all of its documents: an index led by the tenant)
    if (this.counts) await this.counts.coll.createIndex({ [TENANT_FIELD]: 1 });
    for (const ix of indexes) {
      await this.replaceChanged(ix);
      await this.raw.createIndex(ix.key, {
        unique: ix.unique,
        sparse: ix.sparse,
        ...(ix.partialFilterExpression ? { partialFilterExpression: ix.partialFilterExpression } : {}),
      });
    }
  }

  /**
   * Drops the index the collection has under a declared index's key when its kind changed since (unique, or sparse /
   * partial: a sparse one led by the tenant is partial, see tenantIndexKey), so the declaration is made again as it
   * is now: an index made before stays otherwise, and creating it anew would be refused as a conflict.
   */
  private async replaceChanged(ix: IndexDef): Promise<void> {
    const key = JSON.stringify(tenantIndexKey(ix.key));
    const existing = (await this.raw.indexes()).find((e) => JSON.stringify(e.key) === key);
    if (!existing?.name) return;
    const partial = !!(ix.sparse || ix.partialFilterExpression);
    if (!!existing.unique === !!ix.unique && !!(existing.partialFilterExpression || existing.sparse) === partial) return;
    await this.raw.dropIndex(existing.name).catch((err: { code?: number }) => {
      if (err.code !== INDEX_NOT_FOUND) throw err; // (another instance starting at once dropped it first)
    });
  }

  async get(uuid: string): Promise<Stored<T> | null> {
    // (the reads of concurrent requests by _id go to the store together)
    const doc = (await this.reads.get(uuid)) as Stored<T> | null;
    const run = proefScope.getStore();
    if (doc || !run) return doc;
    return ((await this.proef.findOne({ _id: `${run} ${this.name} ${uuid}` }))?.doc as Stored<T> | undefined) ?? null;
  }

  /** Keeps what a dry run of an import would have stored, for the rest of that run (see alsProef). */
  async proefBewaar(run: string, uuid: string, doc: T): Promise<void> {
    const _id = `${run} ${this.name} ${uuid}`;
    const stored = { ...doc, _id: uuid, _created: new Date() } as unknown as Document;
    await this.proef.replaceOne({ _id }, { run, doc: stored }, { upsert: true });
  }

  /**
   * The live documents whose `field` is `value` and that match `fixed` (fields with a value each), in no particular
   * order: the same reads of concurrent requests go to the store together (an identificatie's uniqueness, a
   * document's links), as `get` does by `_id`.
   */
  async findBy(field: string, value: string, fixed: Record<string, string> = {}): Promise<Stored<T>[]> {
    return (await this.reads.by(field, value, fixed)) as Stored<T>[];
  }

  /** The live documents with these uuids that there are, in no particular order: read as `get` reads (together). */
  async getMany(uuids: string[]): Promise<Stored<T>[]> {
    return (await this.reads.getMany(uuids)) as Stored<T>[];
  }

  async findOne(filter: Query): Promise<Stored<T> | null> {
    return (await this.raw.findOne(live(filter))) as Stored<T> | null;
  }

  async find(filter: Query, opts?: Partial<ListOptions> & { projection?: Document }): Promise<Stored<T>[]> {
    return (await readAll(this.cursor(filter, opts, opts?.projection ? { projection: opts.projection } : {}))) as Stored<T>[];
  }

  /**
   * As find, each document as its stored bytes (BSON), not decoded (see RenderCache). A bounded read (a page) is one
   * `find` command whose reply hands over the documents as slices of its bytes: the driver's cursor would first read
   * every document's fields to hand it out, which was half of what a list request allocated.
   */
  async findStored(filter: Query, opts?: Partial<ListOptions>): Promise<Buffer[]> {
    const throughCursor = async () => (await readAll(this.cursor(filter, opts, { raw: true }))) as unknown as Buffer[];
    const limit = opts?.limit;
    if (!limit) return throughCursor();
    const find = {
      find: this.name,
      // (as the tenant's handle scopes the queries it sends: see tenantDb)
      filter: scopedFilter(this.name, live(filter)),
      sort: Object.fromEntries(sortFields(opts.sort ?? DEFAULT_SORT)),
      ...(opts.skip ? { skip: opts.skip } : {}),
      limit,
      batchSize: limit,
    };
    const reply = await this.raw.db.command(find, {
      fieldsAsRaw: { firstBatch: true },
      promoteLongs: false,
      readPreference: this.raw.readPreference,
    });
    const { id, firstBatch } = reply.cursor as { id: Long; firstBatch: Buffer[] };
    if (id.isZero()) return firstBatch;
    // The page did not fit in one reply (16 MB): the cursor the store left open goes, the driver's cursor reads it.
    await this.raw.db.command({ killCursors: this.name, cursors: [id] }).catch(() => undefined);
    return throughCursor();
  }

  private cursor(filter: Query, opts: Partial<ListOptions> | undefined, options: FindOptions) {
    let cursor = this.raw.find(live(filter), options);
    cursor = cursor.sort(opts?.sort ?? DEFAULT_SORT);
    if (opts?.skip) cursor = cursor.skip(opts.skip);
    if (opts?.limit) cursor = cursor.limit(opts.limit);
    return cursor;
  }

  /**
   * One page of the documents matching `filter`. Following a `next`/`previous` continuation is an index seek from
   * the key it carries; a plain `page=N` skips when the skip is within `maxSkip`, else seeks from the nearest page
   * boundary this store has served for the same query, walking (sort keys only) from there when it has none near.
   */
  async page(query: Query, req: PageRequest): Promise<PageResult<Stored<T>>> {
    return this.pageOf(query, req, { find: (filter, opts) => this.find(filter, opts), doc: (d) => d });
  }

  /** As page, each document as its stored bytes (see findStored). */
  async pageStored(query: Query, req: PageRequest): Promise<PageResult<Buffer>> {
    const keys = sortFields(req.sort ?? DEFAULT_SORT).map(([f]) => f);
    return this.pageOf(query, req, { find: (filter, opts) => this.findStored(filter, opts), doc: (b) => storedFields(b, keys) });
  }

  private async pageOf<R>(query: Query, req: PageRequest, rows: Rows<R>): Promise<PageResult<R>> {
    // (the two kinds of query are one at run time; the page helpers combine it with key conditions)
    const filter = query as Filter<Document>;
    const sort = req.sort ?? DEFAULT_SORT;
    const counting = req.count ?? (() => this.count(filter));
    // A later page counts first, so no query reads past the end (`?page=999` reads nothing). A first page that is
    // not full is the whole answer and its own count (a `_zoek` by BSN is one query, not two).
    const first = req.page === 1 ? await rows.find(filter, { sort, limit: req.size }) : undefined;
    const count = first && first.length < req.size ? first.length : await counting();
    let items = first;
    // The query as it is sent: a tenant's collection is read with the tenant added (tenantDb), so each tenant's page
    // positions (and walks to a page) are its own; those of another tenant's same list would seek in the wrong place.
    const sig = querySignature(this.name, scopedFilter(this.name, filter), sort);
    const cursor = decodeCursor(req.cursor, sort);
    if (!items && cursor) items = await this.seek(rows, filter, sort, cursor, req.size);
    else if (!items && (req.page - 1) * req.size >= count) items = [];
    else if (!items) items = await this.jump(rows, filter, sort, sig, req.page, req.size);
    if (!items.length) return { count, items };
    const last = keyOf(rows.doc(items[items.length - 1]!), sort);
    this.anchors.set(sig, req.page + 1, last);
    return {
      count,
      items,
      next: encodeCursor({ dir: 'after', key: last }),
      previous: encodeCursor({ dir: 'before', key: keyOf(rows.doc(items[0]!), sort) }),
    };
  }

  private async seek<R>(rows: Rows<R>, filter: Filter<Document>, sort: Sort, cursor: Cursor, limit: number): Promise<R[]> {
    if (cursor.dir === 'after') return rows.find({ $and: [filter, afterKey(sort, cursor.key)] }, { sort, limit });
    const back = reverse(sort);
    return (await rows.find({ $and: [filter, afterKey(back, cursor.key)] }, { sort: back, limit })).reverse();
  }

  /**
   * Page `page` without a continuation. Near the start, with no closer page boundary known: a bounded skip.
   * Otherwise a walk by sort keys alone from the nearest remembered boundary (or the start) to this page's,
   * remembering every boundary on the way, then a seek: the next request for any page up to here is a seek. Only a
   * client that jumps far without ever following `next` pays a walk, once per region.
   */
  private async jump<R>(rows: Rows<R>, filter: Filter<Document>, sort: Sort, sig: string, page: number, size: number): Promise<R[]> {
    const offset = (page - 1) * size;
    const from = this.anchors.nearest(sig, page);
    if (offset <= this.maxSkip && (!from || (page - from.page) * size >= offset)) return rows.find(filter, { sort, skip: offset, limit: size });
    const id = `${sig}\u0000${page}`;
    let walking = this.walks.get(id);
    if (!walking) {
      walking = this.walk(filter, sort, sig, from, page, size).finally(() => this.walks.delete(id));
      this.walks.set(id, walking);
    }
    const key = await walking;
    if (key === null) return [];
    return rows.find(key ? { $and: [filter, afterKey(sort, key)] } : filter, { sort, limit: size });
  }

  /**
   * Walks by sort keys alone from `from` (or the start) to page `page`, remembering every boundary on the way: the
   * key of the last document before that page (undefined for page 1), null when the page is beyond the end.
   */
  private async walk(
    filter: Filter<Document>,
    sort: Sort,
    sig: string,
    from: { page: number; key: SortKey } | undefined,
    page: number,
    size: number,
  ): Promise<SortKey | undefined | null> {
    let at = from?.page ?? 1;
    let key = from?.key;
    const keys = sortFields(sort).map(([f]) => f);
    const projection = Object.fromEntries(keys.map((f) => [f, 1]));
    while (at < page) {
      const pages = Math.min(page - at, Math.max(1, Math.floor(this.maxSkip / size)));
      const batch = await this.find(key ? { $and: [filter, afterKey(sort, key)] } : filter, { sort, limit: pages * size, projection });
      if (batch.length < pages * size) return null;
      for (let i = 1; i <= pages; i++) this.anchors.set(sig, at + i, keyOf(batch[i * size - 1]!, sort));
      at += pages;
      key = keyOf(batch[batch.length - 1]!, sort);
    }
    return key;
  }

  /**
   * Live documents matching `filter`. Without a filter: the sum of the maintained counts (countBy) when this store
   * keeps them, every live document being in one bucket: one read of a few small documents; else the collection's
   * size from its metadata minus the tombstones (few, and indexed). Counting every document of a large collection
   * would walk all of it (for a tenant: all of its index entries).
   */
  async count(filter: Query): Promise<number> {
    if (!Object.keys(filter).length) {
      if (this.counts) return bucketSum(await this.counts.coll.find({}, { projection: { n: 1 } }).toArray());
      const [all, tombstones] = await Promise.all([this.raw.estimatedDocumentCount(), this.raw.countDocuments({ _tombstone: true })]);
      return Math.max(0, all - tombstones);
    }
    return this.raw.countDocuments(live(filter));
  }

  /** The sum of the maintained counts of these buckets of the current tenant (each a value per countBy field). */
  async countBuckets(buckets: unknown[][]): Promise<number> {
    if (!this.counts) throw new Error(`${this.name}: no maintained counts`);
    if (!buckets.length) return 0;
    const tenant = currentTenant() ?? null;
    return bucketSum(await this.counts.coll.find({ _id: { $in: buckets.map((b) => bucketId([tenant, ...b])) } }).toArray());
  }

  /**
   * Recounts every bucket from the documents (one indexed count per bucket) and corrects those that differ. Safe
   * beside writers: a bucket is corrected only when two counts around the read of its maintained value agree.
   */
  async recount(): Promise<number> {
    if (!this.counts) return 0;
    const { fields, coll } = this.counts;
    const seen = new Set<string>();
    let fixed = 0;
    const groups = await this.raw
      .aggregate<{ _id: Record<string, unknown> }>([
        { $match: LIVE },
        { $sort: Object.fromEntries(fields.map((f) => [f, 1])) },
        { $group: { _id: Object.fromEntries(fields.map((f) => [f, `$${f}`])) } },
      ])
      .toArray();
    const kept = await coll.find({}).sort({ _id: 1 }).toArray();
    // Buckets kept before tenants (without a tenant value) go: the groups above count them again.
    const stale = kept.filter((d) => d.values.length !== fields.length).map((d) => d._id);
    if (stale.length) await coll.deleteMany({ _id: { $in: stale } });
    const existing = kept.filter((d) => d.values.length === fields.length);
    const buckets = [...groups.map((g) => fields.map((f) => g._id[f] ?? null)), ...existing.map((d) => d.values)];
    for (const values of buckets) {
      const id = bucketId(values);
      if (seen.has(id)) continue;
      seen.add(id);
      const match = Object.fromEntries(fields.map((f, i) => [f, values[i] ?? null]));
      const before = await this.count(match);
      const n = (await coll.findOne({ _id: id }))?.n ?? 0;
      const after = await this.count(match);
      if (before === after && n !== before) {
        // only if no adjustment landed meanwhile (then the next recount looks again)
        const r = await coll
          .updateOne({ _id: id, n }, { $set: { values, n: before, [TENANT_FIELD]: values[0] } }, { upsert: n === 0 })
          .catch((err: unknown) => {
            // an adjustment created the bucket meanwhile (the upsert's duplicate key): the next recount looks again
            if ((err as { code?: number }).code === 11000) return undefined;
            throw err;
          });
        if (r?.modifiedCount || r?.upsertedCount) fixed++;
      }
    }
    return fixed;
  }

  /**
   * Sets `fields` on every live document matching `filter`, all of which share one bucket (a zaak's parts when its
   * vertrouwelijkheidaanduiding changes), and moves their count to the new bucket.
   */
  async moveBucket(filter: Query, fields: Document): Promise<void> {
    const first = this.counts ? await this.findOne(filter) : null;
    const r = await this.raw.updateMany(live(filter), { $set: fields });
    if (!first || !this.counts || !r.modifiedCount || !this.counts.fields.some((f) => (first as Document)[f] !== fields[f])) return;
    await this.adjust(first, -r.modifiedCount);
    await this.adjust({ ...first, ...fields }, r.modifiedCount);
  }

  private async adjust(doc: Document | undefined, delta: number): Promise<void> {
    if (!this.counts || !doc) return;
    const values = this.counts.fields.map((f) => doc[f] ?? (f === TENANT_FIELD ? currentTenant() : undefined) ?? null);
    const _id = bucketId(values);
    await batcherOf(this.raw.db, this.counts.coll.collectionName).write(
      _id,
      { updateOne: { filter: { _id }, update: { $inc: { n: delta }, $setOnInsert: { values } }, upsert: true } },
      incrementsAdd,
    );
  }

  /**
   * Stores a new document with its events. What follows the write (its outbox pointer, its bucket count and
   * `alongside`, e.g. the read-your-writes copy of its audit entry) touches other documents only, so it runs
   * concurrently, after the write.
   */
  async insert(uuid: string, data: T, events: OutboxEvent[], alongside?: () => Promise<void>): Promise<Stored<T>> {
    const doc = { ...withoutUnsetInternals(data), _id: uuid, _created: new Date(), ...outboxFields(events) } as Stored<T>;
    // (the inserts of concurrent requests go to the store together)
    await batcherOf(this.raw.db, this.name).add({ insertOne: { document: doc } });
    await Promise.all([this.point(uuid, events), this.adjust(doc, 1), alongside?.()]);
    this.written(events);
    return doc;
  }

  /**
   * A write that follows another on one document of this collection (a link kept on a zaak, a flag on an earlier
   * status), sent together with those of concurrent requests (WriteBatcher): one round trip carries many.
   */
  async followUp(filter: Filter<RawDoc>, update: UpdateFilter<RawDoc>): Promise<void> {
    await batcherOf(this.raw.db, this.name).add({ updateOne: { filter, update } });
  }

  /** Stores the resource's new fields (PUT, or PATCH after merging); returns null when it no longer exists. */
  async replace(current: Stored<T>, data: T, events: OutboxEvent[], alongside?: () => Promise<void>): Promise<Stored<T> | null> {
    const unset: Record<string, ''> = {};
    for (const k of Object.keys(current)) if (!k.startsWith('_') && !(k in data)) unset[k] = '';
    // Internal fields the write sets to undefined go (e.g. a flag that only exists while true).
    for (const [k, v] of Object.entries(data)) if (k.startsWith('_') && v === undefined) unset[k] = '';
    // One atomic update: fields and events together; events already waiting in the document stay.
    const update: Document = { $set: { ...withoutUnsetInternals(data), ...(events.length ? { _pending: true } : {}) } };
    if (Object.keys(unset).length) update.$unset = unset;
    if (events.length) update.$push = { _outbox: { $each: events } };
    const r = await this.raw.updateOne({ _id: current._id, ...LIVE }, update);
    if (!r.matchedCount) return null;
    const moved = this.counts && this.counts.fields.some((f) => (current as Document)[f] !== (data as Document)[f]);
    await Promise.all([
      this.point(current._id, events),
      moved ? Promise.all([this.adjust(current, -1), this.adjust({ ...current, ...data }, 1)]) : undefined,
      alongside?.(),
    ]);
    this.written(events);
    // Internal fields that this write left alone (links kept by other writes) stay part of the returned document.
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(current)) if (k.startsWith('_') && k !== '_outbox' && k !== '_pending') kept[k] = v;
    return withoutUnsetInternals({ ...kept, ...data, _id: current._id, _created: current._created }) as Stored<T>;
  }

  /**
   * Turns the document into a tombstone in one atomic update: its fields go, the events waiting in it stay and
   * the new ones join them, until the relay has published them all and drops the tombstone.
   */
  async remove(current: Stored<T>, events: OutboxEvent[], alongside?: () => Promise<void>): Promise<boolean> {
    // Nothing to publish (a resource without kanaal or audit) and nothing waiting: no tombstone, which no relay
    // would come back for (it has no pointer); the document goes at once.
    if (!events.length) {
      const gone = await this.raw.deleteOne({ _id: current._id, ...LIVE, $or: [{ _outbox: { $exists: false } }, { _outbox: { $size: 0 } }] });
      if (gone.deletedCount) {
        await Promise.all([this.adjust(current, -1), alongside?.()]);
        return true;
      }
    }
    const unset: Record<string, ''> = {};
    for (const k of Object.keys(current)) if (!k.startsWith('_')) unset[k] = '';
    const update: Document = { $set: { _tombstone: true, _pending: true }, $push: { _outbox: { $each: events } } };
    if (Object.keys(unset).length) update.$unset = unset;
    const r = await this.raw.updateOne({ _id: current._id, ...LIVE }, update);
    if (r.matchedCount) {
      await Promise.all([this.point(current._id, events), this.adjust(current, -1), alongside?.()]);
      this.written(events);
    }
    return r.matchedCount > 0;
  }

  /** Documents with unpublished events, found by scanning (the relay does this once at start, for safety). */
  async pending(limit: number): Promise<Stored<T>[]> {
    return (await this.raw.find({ _pending: true }).limit(limit).toArray()) as Stored<T>[];
  }

  /** The documents with these ids that still hold events. */
  async withEvents(ids: string[]): Promise<Stored<T>[]> {
    const docs = (await this.raw.find({ _id: { $in: ids } }, { projection: { _outbox: 1, _tombstone: 1 } }).toArray()) as Stored<T>[];
    return docs.filter((d) => d._outbox?.length);
  }

  /**
   * Marks the events of these documents as published, in at most three writes however many documents: pulls the events,
   * drops the tombstones left without events (tombstones take no new events), and clears the scan flag of the other
   * documents left without events. Only those: an event pushed meanwhile stays in `_outbox`, keeps the flag, and its
   * pointer brings the relay back. Every filter is by `_id`, the lookup every MongoDB-compatible store serves from an
   * index.
   */
  async published(docs: { _id: string; _outbox?: OutboxEvent[]; _tombstone?: true }[]): Promise<void> {
    if (!docs.length) return;
    const byIds = { _id: { $in: docs.map((d) => d._id) } };
    const done = { ...byIds, _outbox: { $size: 0 } };
    const ids = docs.flatMap((d) => (d._outbox ?? []).map((e) => e.id));
    if (ids.length) await this.raw.updateMany(byIds, pull('_outbox', { id: { $in: ids } }));
    // A document becomes a tombstone only together with new events, which keep it out of `done` this round.
    if (docs.some((d) => d._tombstone)) await this.raw.deleteMany({ ...done, _tombstone: true });
    await this.raw.updateMany(done, { $unset: { _pending: '' } });
  }

  /** Writes the outbox pointer of a document that has just received events. */
  private async point(uuid: string, events: OutboxEvent[]): Promise<void> {
    if (!events.length) return;
    const pointer = { collection: this.name, doc: uuid, nonce: randomUUID(), at: new Date() };
    const _id = `${this.name}/${uuid}`;
    await batcherOf(this.raw.db, OUTBOX_POINTERS).write(_id, { updateOne: { filter: { _id }, update: { $set: pointer }, upsert: true } }, laterWins);
  }

  private written(events: OutboxEvent[]): void {
    if (events.length) this.onWrite();
  }
}

/** The document without its internal fields whose value is undefined (not stored, rather than stored as null). */
function withoutUnsetInternals<D extends object>(data: D): D {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) if (!(k.startsWith('_') && v === undefined)) out[k] = v;
  return out as D;
}

function outboxFields(events: OutboxEvent[]): Partial<StoredMeta> {
  return events.length ? { _outbox: events, _pending: true } : {};
}

export function newEvent(topic: string, key: string, payload: OutboxEvent['payload']): OutboxEvent {
  const trace = currentTrace();
  const tenant = currentTenant();
  return { id: randomUUID(), topic, key, payload, createdAt: new Date(), ...(trace ? { trace } : {}), ...(tenant ? { tenant } : {}) };
}

/** The API view of a stored document: internal fields dropped. */
export function publicFields<T extends Document>(doc: Stored<T>): PublicFields<T> {
  return copyPublic(doc, {}) as PublicFields<T>;
}

/** The public fields of a stored document: those not starting with `_` (see copyPublic). */
export type PublicFields<D> = { [K in keyof D as K extends `_${string}` ? never : K]: D[K] };

/** Copies the public fields of a stored document (those not starting with `_`) into `out`, in their order. */
export function copyPublic(doc: Document, out: Record<string, unknown>): Record<string, unknown> {
  // for-in and a char code: a page copies thousands of fields, and this is its hottest loop
  for (const k in doc) if (k.charCodeAt(0) !== 95) out[k] = doc[k];
  return out;
}
