import { randomUUID } from 'node:crypto';
import type { Collection, Db, Document, Filter, IndexSpecification, Sort } from 'mongodb';
import type { OutboxEvent } from '@zgw/shared';

/**
 * One MongoDB collection of a ZGW resource. Every write carries its domain events inside the same document write
 * (`_outbox`), so a crash can never separate a change from its notification; the relay publishes and removes them.
 * A delete replaces the document by a tombstone holding only the outbox until the relay has published it.
 * Stored documents are the API shape minus `url`, keyed by `_id` = uuid; fields starting with `_` are internal.
 */
export interface StoredMeta {
  _id: string;
  _created: Date;
  _outbox?: OutboxEvent[];
  _pending?: true;
  _tombstone?: true;
}

export type Stored<T> = T & StoredMeta;

/**
 * The collection of outbox pointers: one per document with unpublished events, written before the document (so no
 * event is ever without one) and removed by the relay once it has published them. The relay finds its work here
 * instead of scanning every resource collection. `nonce` changes with every write, so the relay never removes a
 * pointer for events that arrived while it was publishing.
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

export interface ListOptions {
  skip: number;
  limit: number;
  sort?: Sort;
}

export class Store<T extends Document> {
  readonly coll: Collection<Stored<T>>;
  private readonly pointers: Collection<OutboxPointer>;

  constructor(
    db: Db,
    readonly name: string,
    private readonly onWrite: () => void,
  ) {
    this.coll = db.collection<Stored<T>>(name);
    this.pointers = db.collection<OutboxPointer>(OUTBOX_POINTERS);
  }

  async ensureIndexes(indexes: { key: IndexSpecification; unique?: boolean; sparse?: boolean }[] = []): Promise<void> {
    await this.coll.createIndex({ _pending: 1 }, { sparse: true });
    await this.coll.createIndex({ _tombstone: 1 }, { sparse: true });
    // The relay reads pointers oldest first for its collections (`$in` with a sort: the sort field leads).
    await this.pointers.createIndex({ at: 1, collection: 1 });
    await this.coll.createIndex({ _created: 1, _id: 1 });
    for (const ix of indexes) await this.coll.createIndex(ix.key, { unique: ix.unique, sparse: ix.sparse });
  }

  async get(uuid: string): Promise<Stored<T> | null> {
    return (await this.coll.findOne({ _id: uuid, ...LIVE } as Filter<Stored<T>>)) as Stored<T> | null;
  }

  async findOne(filter: Filter<Document>): Promise<Stored<T> | null> {
    return (await this.coll.findOne({ ...filter, ...LIVE } as Filter<Stored<T>>)) as Stored<T> | null;
  }

  async find(filter: Filter<Document>, opts?: Partial<ListOptions>): Promise<Stored<T>[]> {
    let cursor = this.coll.find({ ...filter, ...LIVE } as Filter<Stored<T>>).sort(opts?.sort ?? { _created: 1, _id: 1 });
    if (opts?.skip) cursor = cursor.skip(opts.skip);
    if (opts?.limit) cursor = cursor.limit(opts.limit);
    return (await cursor.toArray()) as Stored<T>[];
  }

  async list(filter: Filter<Document>, opts: ListOptions): Promise<{ count: number; items: Stored<T>[] }> {
    if (!opts.skip) {
      const [count, items] = await Promise.all([this.count(filter), this.find(filter, opts)]);
      return { count, items };
    }
    // A later page counts first, so no query skips past the end (`?page=999` reads nothing).
    const count = await this.count(filter);
    return { count, items: opts.skip < count ? await this.find(filter, opts) : [] };
  }

  /**
   * Live documents matching `filter`. Without a filter: the collection's size from its metadata minus the tombstones
   * (few, and indexed), since counting every document of a large collection is a full scan.
   */
  async count(filter: Filter<Document>): Promise<number> {
    if (!Object.keys(filter).length) {
      const [all, tombstones] = await Promise.all([this.coll.estimatedDocumentCount(), this.coll.countDocuments({ _tombstone: true } as Filter<Stored<T>>)]);
      return Math.max(0, all - tombstones);
    }
    return this.coll.countDocuments({ ...filter, ...LIVE } as Filter<Stored<T>>);
  }

  async insert(uuid: string, data: T, events: OutboxEvent[]): Promise<Stored<T>> {
    const doc = { ...data, _id: uuid, _created: new Date(), ...outboxFields(events) } as Stored<T>;
    await this.point(uuid, events);
    await this.coll.insertOne(doc as never);
    this.written(events);
    return doc;
  }

  /** Stores the resource's new fields (PUT, or PATCH after merging); returns null when it no longer exists. */
  async replace(current: Stored<T>, data: T, events: OutboxEvent[]): Promise<Stored<T> | null> {
    const unset: Record<string, ''> = {};
    for (const k of Object.keys(current)) if (!k.startsWith('_') && !(k in data)) unset[k] = '';
    // One atomic update: fields and events together; events already waiting in the document stay.
    const update: Document = { $set: { ...data, ...(events.length ? { _pending: true } : {}) } };
    if (Object.keys(unset).length) update.$unset = unset;
    if (events.length) update.$push = { _outbox: { $each: events } };
    await this.point(current._id, events);
    const r = await this.coll.updateOne({ _id: current._id, ...LIVE } as Filter<Stored<T>>, update as never);
    if (!r.matchedCount) return null;
    this.written(events);
    // Internal fields that this write left alone (links kept by other writes) stay part of the returned document.
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(current)) if (k.startsWith('_') && k !== '_outbox' && k !== '_pending') kept[k] = v;
    return { ...kept, ...data, _id: current._id, _created: current._created } as Stored<T>;
  }

  /**
   * Turns the document into a tombstone in one atomic update: its fields go, the events waiting in it stay and
   * the new ones join them, until the relay has published them all and drops the tombstone.
   */
  async remove(current: Stored<T>, events: OutboxEvent[]): Promise<boolean> {
    const unset: Record<string, ''> = {};
    for (const k of Object.keys(current)) if (!k.startsWith('_')) unset[k] = '';
    const update: Document = { $set: { _tombstone: true, _pending: true }, $push: { _outbox: { $each: events } } };
    if (Object.keys(unset).length) update.$unset = unset;
    await this.point(current._id, events);
    const r = await this.coll.updateOne({ _id: current._id, ...LIVE } as Filter<Stored<T>>, update as never);
    if (r.matchedCount) this.written(events);
    return r.matchedCount > 0;
  }

  /** Documents with unpublished events, found by scanning (the relay does this once at start, for safety). */
  async pending(limit: number): Promise<Stored<T>[]> {
    return (await this.coll.find({ _pending: true } as Filter<Stored<T>>).limit(limit).toArray()) as Stored<T>[];
  }

  /** The documents with these ids that still hold events. */
  async withEvents(ids: string[]): Promise<Stored<T>[]> {
    const docs = (await this.coll.find({ _id: { $in: ids } } as Filter<Stored<T>>).toArray()) as Stored<T>[];
    return docs.filter((d) => d._outbox?.length);
  }

  /**
   * Marks events as published: pulls them, then drops a finished tombstone (tombstones take no new events) or clears
   * the scan flag. Only the flag: an event pushed meanwhile stays in `_outbox` and its pointer brings the relay back.
   * Every filter is by `_id` alone, the one lookup every MongoDB-compatible store serves from an index.
   */
  async published(uuid: string, ids: string[]): Promise<void> {
    const byId = { _id: uuid } as Filter<Stored<T>>;
    const after = await this.coll.findOneAndUpdate(byId, { $pull: { _outbox: { id: { $in: ids } } } } as never, { returnDocument: 'after' });
    if (!after || after._outbox?.length) return;
    if (after._tombstone) await this.coll.deleteOne(byId);
    else await this.coll.updateOne(byId, { $unset: { _pending: '' } } as never);
  }

  /** Writes the outbox pointer of a document that is about to receive events (before the document itself). */
  private async point(uuid: string, events: OutboxEvent[]): Promise<void> {
    if (!events.length) return;
    const pointer = { collection: this.name, doc: uuid, nonce: randomUUID(), at: new Date() };
    await this.pointers.updateOne({ _id: `${this.name}/${uuid}` }, { $set: pointer }, { upsert: true });
  }

  private written(events: OutboxEvent[]): void {
    if (events.length) this.onWrite();
  }
}

function outboxFields(events: OutboxEvent[]): Partial<StoredMeta> {
  return events.length ? { _outbox: events, _pending: true } : {};
}

export function newEvent(topic: string, key: string, payload: OutboxEvent['payload']): OutboxEvent {
  return { id: randomUUID(), topic, key, payload, createdAt: new Date() };
}

/** The API view of a stored document: internal fields dropped. */
export function publicFields<T extends Document>(doc: Stored<T>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!k.startsWith('_')) out[k] = v;
  return out as T;
}
