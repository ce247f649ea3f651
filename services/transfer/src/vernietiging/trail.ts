import { AUDIT_READS_COLLECTION, AUDITTRAIL_COLLECTION, leesZonder } from '@zgw/shared';

type StoredRead = { _id: string; hoofdObjecten?: string[]; getoond?: [string, string, number][] };
import type { Uitvoer, Vernietigd } from './lijst';

/**
 * Registers main objects (zaken, besluiten, documents) as destroyed by the list, before their deletes: from then on
 * the audit worker drops their entries that reach it (a read spooled, a write's entry delivered again by Kafka), so
 * what ruimTrailOp removes does not come back. Registering twice changes nothing.
 */
export async function registreer(u: Uitvoer, soort: Vernietigd['soort'], urls: string[]): Promise<void> {
  if (!urls.length) return;
  const op = new Date();
  await u.vernietigd.bulkWrite(
    urls.map((_id) => ({ updateOne: { filter: { _id }, update: { $setOnInsert: { _id, lijst: u.o.lijst, soort, op } }, upsert: true } })),
    { ordered: false },
  );
}

/** A document that stays after all (still used elsewhere) leaves the register: its trail goes on. */
export async function schrap(u: Uitvoer, url: string): Promise<void> {
  await u.vernietigd.deleteOne({ _id: url, lijst: u.o.lijst });
}

/**
 * The audit trail of destroyed main objects goes with them: every entry of their trails (writes, the deletes
 * included), and their read entries; a read entry that also names objects that stay keeps those and loses these.
 */
export async function ruimTrailOp(u: Uitvoer, urls: string[]): Promise<void> {
  if (!urls.length) return;
  const { db } = u;
  await db.collection(AUDITTRAIL_COLLECTION).deleteMany({ hoofdObject: { $in: urls } });
  const reads = db.collection<StoredRead>(AUDIT_READS_COLLECTION);
  const weg = new Set(urls);
  const gevonden = await reads.find({ hoofdObjecten: { $in: urls } }).toArray();
  const heel: string[] = [];
  for (const r of gevonden) {
    const rest = leesZonder(r, weg);
    if (!rest) heel.push(r._id);
    else await reads.replaceOne({ _id: r._id }, rest);
  }
  if (heel.length) await reads.deleteMany({ _id: { $in: heel } });
}
