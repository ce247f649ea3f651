// Where personal identifiers sit in the resources, and how a resource keeps them sealed at rest (shared/src/pii.ts):
// the identification of a natural person (a rol's betrokkeneIdentificatie, a zaakobject's objectIdentificatie, and the
// natuurlijkPersoon a zakelijk_recht names) is stored with these fields encrypted, wherever they are nested, and with
// a search hash of each beside it (`_pii`), which the filters look up. Reads open them again.
import type { Db, Document, Sort } from 'mongodb';
import { AUDITTRAIL_COLLECTION, Pii, PiiError } from '@zgw/shared';
import type { JsonObject } from './schema-parts';
import { LIVE } from './store';

/** The identifiers of a natural person that are never stored in the clear. */
export const PII_FIELDS: ReadonlySet<string> = new Set(['inpBsn', 'inpA_nummer', 'anpIdentificatie']);

/** Where a document keeps the search hashes of its sealed identifiers, by field name. */
export const PII_HASHES = '_pii';

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * How deep the identifiers are looked for: they sit at most two levels down (a zakelijk_recht's
 * `heeftAlsGerechtigde.natuurlijkPersoon`); deeper parts (`overigeData` may nest as deep as a client likes) are kept
 * as they are.
 */
const MAX_DEPTH = 4;

/**
 * A copy of `value` with `f` applied to every identifier in it (a non-empty string under one of PII_FIELDS, at most
 * MAX_DEPTH down); `f` gets the field name, the encryption's context.
 */
function mapIdentifiers(value: unknown, f: (field: string, v: string) => string, depth = 0): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => mapIdentifiers(v, f, depth + 1));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value))
    out[k] = PII_FIELDS.has(k) && typeof v === 'string' && v !== '' ? f(k, v) : mapIdentifiers(v, f, depth + 1);
  return out;
}

/** A copy of `value` with every identifier encrypted. */
export function sealPii(pii: Pii, value: unknown): unknown {
  return mapIdentifiers(value, (k, v) => pii.encrypt(v, k));
}

/** A copy of `value` with every sealed identifier opened (values stored in the clear by an earlier version pass). */
export function openPii(pii: Pii, value: unknown): unknown {
  return mapIdentifiers(value, (k, v) => (v.startsWith('pii:') ? pii.decrypt(v, k) : v));
}

/** The search hashes (newest key) of the identifiers at the top of an identification: what `_pii` holds. */
export function piiHashes(pii: Pii, identificatie: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(identificatie)) return out;
  for (const [k, v] of Object.entries(identificatie)) if (PII_FIELDS.has(k) && typeof v === 'string' && v !== '') out[k] = pii.searchHash(v, k);
  return out;
}

/**
 * The condition of a filter on an identifier: its search hash under every configured key (values written before the
 * newest key came still match), one equality per key so each is served by the field's index in list order.
 */
export function piiCondition(pii: Pii, field: string, value: string): JsonObject {
  const hashes = pii.searchHashes(value, field);
  const path = `${PII_HASHES}.${field}`;
  return hashes.length === 1 ? { [path]: hashes[0] } : { $or: hashes.map((h) => ({ [path]: h })) };
}

/** The `settings` document that lists the key versions values here were sealed with, each with its key check. */
export const PII_KEYS_SETTING = 'pii.keys';

/** The key versions recorded in `pii.keys` (each with its check value), and the collection that holds them. */
async function keysInUse(db: Db) {
  const settings = db.collection<{ _id: string; versions?: Record<string, string> }>('settings');
  return { settings, used: (await settings.findOne({ _id: PII_KEYS_SETTING }))?.versions ?? {} };
}

/**
 * At start: every key version that sealed values in this database must be configured, and be the same key (its
 * check value); otherwise the API refuses to start rather than fail on each read. Then the newest key is recorded.
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

/** The key versions of the sealed identifiers in `value` (and `plain` for one in the clear). */
function sealedWith(value: unknown): Set<string> {
  const out = new Set<string>();
  mapIdentifiers(value, (_k, v) => {
    out.add(Pii.versionOf(v) ?? 'plain');
    return v;
  });
  return out;
}

/** Where identifiers are kept: a collection, the field that holds them, and whether search hashes go beside it. */
const HOLDERS: { collection: string; field: string; hashes: boolean; query: Document; sort: Sort }[] = [
  { collection: 'rollen', field: 'betrokkeneIdentificatie', hashes: true, query: LIVE, sort: { _created: 1, _id: 1 } },
  { collection: 'zaakobjecten', field: 'objectIdentificatie', hashes: true, query: LIVE, sort: { _created: 1, _id: 1 } },
  { collection: AUDITTRAIL_COLLECTION, field: 'wijzigingen', hashes: false, query: {}, sort: { _id: 1 } },
];

/**
 * Seals with the newest key every identifier that is in the clear (stored by an earlier version) or sealed with an
 * older key, in the rollen, the zaakobjecten and the audit trail, with the search hashes of the newest key. Each
 * document is one update, made only if it is still as it was read: a run cut short is taken up by the next, and two
 * at once do no harm. Returns how many documents it found to reseal and how many it changed (a document changed
 * meanwhile is left to the next run); `progress` hears of every 1,000.
 */
export async function resealIdentifiers(
  db: Db,
  pii: Pii,
  progress: (n: number) => void = () => undefined,
): Promise<{ found: number; changed: number }> {
  let n = 0;
  let found = 0;
  for (const { collection, field, hashes, query, sort } of HOLDERS) {
    const coll = db.collection<Document>(collection);
    for await (const doc of coll.find(query, { projection: { [field]: 1, [PII_HASHES]: 1 } }).sort(sort)) {
      const versions = sealedWith(doc[field]);
      const stale = [...versions].some((v) => v !== pii.current) || (hashes && doc[PII_HASHES] === undefined);
      if (!stale) continue;
      found++;
      const plain = openPii(pii, doc[field]);
      const set: Document = { [field]: sealPii(pii, plain) };
      if (hashes) set[PII_HASHES] = piiHashes(pii, plain);
      const r = await coll.updateOne({ _id: doc._id, [field]: doc[field] }, { $set: set });
      n += r.modifiedCount;
      if (r.modifiedCount && n % 1000 === 0) progress(n);
    }
  }
  return { found, changed: n };
}

/** After a complete reseal: the key versions no value is sealed with any more leave `pii.keys` (they can be retired). */
export async function forgetRetiredKeys(db: Db, pii: Pii): Promise<string[]> {
  const { settings, used } = await keysInUse(db);
  const retired = Object.keys(used).filter((v) => v !== pii.current);
  if (retired.length) await settings.updateOne({ _id: PII_KEYS_SETTING }, { $unset: Object.fromEntries(retired.map((v) => [`versions.${v}`, ''])) });
  return retired;
}
