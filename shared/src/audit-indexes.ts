import type { Db, IndexSpecification } from 'mongodb';
import { AUDIT_READS_COLLECTION, AUDITTRAIL_COLLECTION } from './audit';

/**
 * The indexes of the audit trail's two collections, declared by every process that uses them (the API, which serves
 * and stores entries, and services/audit, which stores what reaches it through Kafka). `aanmaakdatum` is an ISO
 * string, so a range of it is a period.
 * - `audittrail`: one main object's trail (a zaak, a document), oldest first, or a period of it.
 * - `auditreads`: one client's reads in a period, and the reads of one main object in a period.
 */
export const AUDIT_INDEXES: Readonly<Record<string, readonly IndexSpecification[]>> = {
  [AUDITTRAIL_COLLECTION]: [{ hoofdObject: 1, aanmaakdatum: 1, _id: 1 }],
  [AUDIT_READS_COLLECTION]: [
    { clientId: 1, aanmaakdatum: 1, _id: 1 },
    { hoofdObject: 1, aanmaakdatum: 1, _id: 1 },
  ],
};

/** Declares the indexes of one audit collection (`audittrail` or `auditreads`); a no-op when they exist. */
export async function ensureAuditIndexes(db: Db, collection: typeof AUDITTRAIL_COLLECTION | typeof AUDIT_READS_COLLECTION): Promise<void> {
  for (const spec of AUDIT_INDEXES[collection] ?? []) await db.collection(collection).createIndex(spec);
}
