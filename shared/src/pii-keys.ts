import type { Db } from 'mongodb';
import { PiiError, type Pii } from './pii';

// Which PII key versions sealed the values of a database, kept in the database itself, so that every service refuses
// to start without the keys that open them, and a key is retired only after nothing sealed with it is left.

/** The `settings` document that lists the key versions values here were sealed with, each with its key check. */
export const PII_KEYS_SETTING = 'pii.keys';

/** The key versions recorded in `pii.keys` (each with its check value), and the collection that holds them. */
async function keysInUse(db: Db) {
  const settings = db.collection<{ _id: string; versions?: Record<string, string> }>('settings');
  return { settings, used: (await settings.findOne({ _id: PII_KEYS_SETTING }))?.versions ?? {} };
}

/**
 * At start: every key version that sealed values in this database must be configured, and be the same key (its
 * check value); otherwise the service refuses to start rather than fail on each read. Then the newest key is recorded.
 */
export async function checkPiiKeys(db: Db, pii: Pii): Promise<void> {
  const { settings, used } = await keysInUse(db);
  const missing = Object.keys(used).filter((v) => !pii.versions.includes(v));
  if (missing.length) {
    throw new PiiError(
      `values sealed with PII key ${missing.join(', ')} are stored in this database, and no such key is configured (ZGW_PII_KEYS or ZGW_PII_KEYS_FILE): without it they cannot be read`,
    );
  }
  const other = Object.entries(used)
    .filter(([v, check]) => pii.keyCheck(v) !== check)
    .map(([v]) => v);
  if (other.length) throw new PiiError(`PII key ${other.join(', ')} is not the key the values in this database were sealed with`);
  if (!(pii.current in used)) {
    await settings.updateOne({ _id: PII_KEYS_SETTING }, { $set: { [`versions.${pii.current}`]: pii.keyCheck(pii.current)! } }, { upsert: true });
  }
}

/** After a complete reseal: the key versions no value is sealed with any more leave `pii.keys` (they can be retired). */
export async function forgetRetiredKeys(db: Db, pii: Pii): Promise<string[]> {
  const { settings, used } = await keysInUse(db);
  const retired = Object.keys(used).filter((v) => v !== pii.current);
  if (retired.length) await settings.updateOne({ _id: PII_KEYS_SETTING }, { $unset: Object.fromEntries(retired.map((v) => [`versions.${v}`, ''])) });
  return retired;
}
