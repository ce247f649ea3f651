import type { Db, IndexSpecification } from 'mongodb';
import { AUDIT_READS_COLLECTION, AUDITTRAIL_COLLECTION } from './audit';

/**
 * The indexes of the audit trail's two collections, declared by every process that uses them (the API, which serves
 * and stores entries, and services/audit, which stores what reaches it through Kafka). `aanmaakdatum` is an ISO
 * string, so a range of it is a period.
 * - `audittrail`: one main object's trail (a zaak, a document), oldest first, or a period of it.
 * - `auditreads`: one client's reads in a period, and the reads that showed one main object (`hoofdObjecten`, an
 *   entry per object of a list) in a period: the reads in that object's trail.
 */
export const AUDIT_INDEXES: Readonly<Record<string, readonly IndexSpecification[]>> = {
  [AUDITTRAIL_COLLECTION]: [{ hoofdObject: 1, aanmaakdatum: 1, _id: 1 }],
  [AUDIT_READS_COLLECTION]: [
    { clientId: 1, aanmaakdatum: 1, _id: 1 },
    { hoofdObjecten: 1, aanmaakdatum: 1, _id: 1 },
  ],
};

/** The field of a stored read entry that its TTL index expires it by: its aanmaakdatum as a date. */
export const READ_EXPIRY_FIELD = '_aangemaakt';
const READ_EXPIRY_INDEX = 'leestermijn';

/**
 * Declares the indexes of one audit collection (`audittrail` or `auditreads`); a no-op when they exist. For
 * `auditreads`, with `retentionDays`, also the TTL index that removes read entries that many days after they were
 * made; a changed period replaces the index (and so applies to the entries already stored).
 */
export async function ensureAuditIndexes(
  db: Db,
  collection: typeof AUDITTRAIL_COLLECTION | typeof AUDIT_READS_COLLECTION,
  retentionDays?: number,
): Promise<void> {
  const coll = db.collection(collection);
  for (const spec of AUDIT_INDEXES[collection] ?? []) await coll.createIndex(spec);
  if (collection !== AUDIT_READS_COLLECTION || retentionDays === undefined) return;
  const expireAfterSeconds = Math.round(retentionDays * 86_400);
  const existing = (
    await coll
      .listIndexes()
      .toArray()
      // (a collection not made yet has no index; any other failure is raised)
      .catch((err: { code?: number; codeName?: string }) => {
        if (err.code === 26 || err.codeName === 'NamespaceNotFound') return [];
        throw err;
      })
  ).find((i) => i.name === READ_EXPIRY_INDEX);
  if (existing && existing.expireAfterSeconds === expireAfterSeconds) return;
  if (existing) await coll.dropIndex(READ_EXPIRY_INDEX);
  await coll.createIndex({ [READ_EXPIRY_FIELD]: 1 }, { name: READ_EXPIRY_INDEX, expireAfterSeconds });
}
