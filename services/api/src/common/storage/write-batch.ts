import type { AnyBulkWriteOperation, Collection, Db, Document } from 'mongodb';
import { MongoBulkWriteError } from 'mongodb';
import { currentTenant, isTenantCollection, platformDb, tenantOp } from '@zgw/shared';

/** The documents these writes touch are keyed by a string `_id`. */
type Keyed = Document & { _id: string };
type Op = AnyBulkWriteOperation<Keyed>;

/** At most this many writes in one round trip. */
const MAX_BATCH = 500;

interface Waiting {
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Queued {
  op: Op;
  waiting: Waiting[];
}

/**
 * Sends the small writes that concurrent requests make to one collection (outbox pointers, maintained counts, audit
 * entries) together: while one round trip is under way the next writes queue, and go in the next round trip as one
 * unordered bulk write. A lone write goes at once, so a quiet API waits no longer than before; a busy one makes
 * one round trip where it made one per request. Every caller's promise settles only when its own write is stored (or
 * failed), so what a request acknowledges is as durable as before.
 *
 * Writes with the same key in one round trip are merged first (`merge`: a later pointer replaces an earlier one,
 * increments add up), so no two operations of a round trip touch one document and their order cannot matter.
 */
export class WriteBatcher {
  private queue = new Map<string, Queued>();
  private busy = false;
  private added = 0;

  /**
   * `coll` is the collection without tenant restrictions: a round trip carries writes of many requests, so each write
   * is made its tenant's when it is queued (`tenants`: the collection belongs to tenants).
   */
  constructor(
    private readonly coll: Collection<Keyed>,
    private readonly tenants = false,
  ) {}

  /** Queues a write; `merge(earlier, later)` combines two writes with the same key waiting in the same round trip. */
  write(key: string, op: Op, merge: (earlier: Op, later: Op) => Op): Promise<void> {
    const tenant = this.tenants ? currentTenant() : undefined;
    if (tenant) {
      key = `${tenant}/${key}`;
      op = tenantOp(op as AnyBulkWriteOperation<Document>, tenant) as Op;
    }
    return new Promise<void>((resolve, reject) => {
      const queued = this.queue.get(key);
      if (queued) {
        queued.op = merge(queued.op, op);
        queued.waiting.push({ resolve, reject });
      } else {
        this.queue.set(key, { op, waiting: [{ resolve, reject }] });
      }
      if (!this.busy) void this.flush();
    });
  }

  /**
   * Queues a write that is merged with no other (an insert: two of one `_id` both reach the store, and the second is
   * refused as it would be alone).
   */
  add(op: Op): Promise<void> {
    return this.write(`\u0000${++this.added}`, op, laterWins);
  }

  private async flush(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.size) {
        const batch: Queued[] = [];
        for (const [key, queued] of this.queue) {
          batch.push(queued);
          this.queue.delete(key);
          if (batch.length === MAX_BATCH) break;
        }
        await this.send(batch);
      }
    } finally {
      this.busy = false;
    }
  }

  private async send(batch: Queued[]): Promise<void> {
    const settle = (q: Queued, err?: unknown) => q.waiting.forEach((w) => (err === undefined ? w.resolve() : w.reject(err)));
    try {
      await this.coll.bulkWrite(
        batch.map((q) => q.op),
        { ordered: false },
      );
      batch.forEach((q) => settle(q));
    } catch (err) {
      // Unordered: the operations without a write error of their own were applied.
      const failed = new Map<number, unknown>();
      if (err instanceof MongoBulkWriteError && !err.writeConcernError) {
        const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
        // (with its code, as a single write's error has it: a duplicate key is 11000)
        for (const e of errors) failed.set(e.index, Object.assign(new Error(e.errmsg ?? 'write failed'), { code: e.code }));
        batch.forEach((q, i) => settle(q, failed.get(i)));
      } else {
        batch.forEach((q) => settle(q, err));
      }
    }
  }
}

const batchers = new WeakMap<Db, Map<string, WriteBatcher>>();

/** The one batcher of a collection of a database (so every writer of that collection shares its round trips). */
export function batcherOf(db: Db, collection: string): WriteBatcher {
  let byName = batchers.get(db);
  if (!byName) batchers.set(db, (byName = new Map()));
  let b = byName.get(collection);
  if (!b) byName.set(collection, (b = new WriteBatcher(platformDb(db).collection<Keyed>(collection), isTenantCollection(collection))));
  return b;
}

/** Merge rule of writes that replace each other: the later one stands. */
export const laterWins = (_earlier: Op, later: Op): Op => later;

/** Merge rule of increments (`updateOne` with `$inc` and `$setOnInsert`): the increments add up. */
export function incrementsAdd(earlier: Op, later: Op): Op {
  if (!('updateOne' in earlier) || !('updateOne' in later)) return later;
  const a = (earlier.updateOne.update as Document).$inc as Record<string, number>;
  const b = (later.updateOne.update as Document).$inc as Record<string, number>;
  const inc: Record<string, number> = { ...a };
  for (const [k, v] of Object.entries(b)) inc[k] = (inc[k] ?? 0) + v;
  return { updateOne: { ...later.updateOne, update: { ...(later.updateOne.update as Document), $inc: inc } } };
}
