import { MongoBulkWriteError, type Db } from 'mongodb';
import type { AuditCollection, StoredEntry } from './entries';

export interface StoreResult {
  /** Entries stored now. */
  inserted: number;
  /** Entries that were there already (stored by the API at the write, or by an earlier delivery): left as they are. */
  present: number;
  /** Entries the database refuses whatever is tried (per-document errors that no retry fixes), with the error code. */
  rejected: { uuid: string; code: number }[];
}

/** Stores entries by `_id` only where absent; throws when the database cannot be reached (the caller retries). */
export interface EntryStore {
  insertAbsent(collection: AuditCollection, entries: StoredEntry[]): Promise<StoreResult>;
}

const DUPLICATE_KEY = 11000;
/**
 * Per-document errors that say the document itself is wrong (a retry gets the same answer): BadValue, TypeMismatch,
 * DollarPrefixedFieldName, DocumentValidationFailure, BSONObjectTooLarge, KeyTooLong.
 */
const PERMANENT = new Set([2, 14, 52, 121, 10334, 17280]);

/**
 * MongoDB: one unordered insert per batch. A duplicate key (the entry is there) is success and never replaces what
 * is stored; the rest of the batch is inserted regardless.
 */
export class MongoEntryStore implements EntryStore {
  constructor(private readonly db: Db) {}

  async insertAbsent(collection: AuditCollection, entries: StoredEntry[]): Promise<StoreResult> {
    if (!entries.length) return { inserted: 0, present: 0, rejected: [] };
    try {
      const r = await this.db.collection<StoredEntry>(collection).insertMany(entries, { ordered: false });
      return { inserted: r.insertedCount, present: 0, rejected: [] };
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError) || err.writeConcernError) throw err;
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      // Anything else (a primary stepping down mid-batch, a timeout): the whole batch is tried again; what was
      // inserted meanwhile is then a duplicate.
      if (errors.some((e) => e.code !== DUPLICATE_KEY && !PERMANENT.has(e.code))) throw err;
      const rejected = errors.filter((e) => e.code !== DUPLICATE_KEY).map((e) => ({ uuid: entries[e.index]!._id, code: e.code }));
      const present = errors.length - rejected.length;
      return { inserted: entries.length - errors.length, present, rejected };
    }
  }
}
