// Where personal identifiers sit in the resources, and how a resource keeps them sealed at rest (shared/src/pii.ts):
// the identification of a natural person (a rol's betrokkeneIdentificatie, a zaakobject's objectIdentificatie, and the
// natuurlijkPersoon a zakelijk_recht names) is stored with these fields encrypted, wherever they are nested, and with
// a search hash of each beside it (`_pii`), which the filters look up. Reads open them again.
import type { AnyBulkWriteOperation, Db, Document, Filter, Sort } from 'mongodb';
import { AUDITTRAIL_COLLECTION, Pii, SECRET_FIELDS, openSecret, sealSecret, type Logger, type SecretKind } from '@zgw/shared';
import { LIVE } from '../storage/store';

/** The identifiers of a natural person that are never stored in the clear. */
export const PII_FIELDS: ReadonlySet<string> = new Set(['inpBsn', 'inpA_nummer', 'anpIdentificatie']);

/** Where a document keeps the search hashes of its sealed identifiers, by field name. */
export const PII_HASHES = '_pii';

function isObject(v: unknown): v is object {
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
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, PII_FIELDS.has(k) && typeof v === 'string' && v !== '' ? f(k, v) : mapIdentifiers(v, f, depth + 1)]),
  );
}

/** A copy of `value` with every identifier encrypted (its shape kept: each identifier a string still). */
export function sealPii<T>(pii: Pii, value: T): T {
  return mapIdentifiers(value, (k, v) => pii.encrypt(v, k)) as T;
}

/** A copy of `value` with every sealed identifier opened (values stored in the clear by an earlier version pass). */
export function openPii<T>(pii: Pii, value: T): T {
  return mapIdentifiers(value, (k, v) => (Pii.isSealed(v) ? pii.decrypt(v, k) : v)) as T;
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
export function piiCondition(pii: Pii, field: string, value: string): Filter<Document> {
  const hashes = pii.searchHashes(value, field);
  const path = `${PII_HASHES}.${field}`;
  return hashes.length === 1 ? { [path]: hashes[0] } : { $or: hashes.map((h) => ({ [path]: h })) };
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

/**
 * Where sealed values are kept: a collection, the field that holds them, how its values are sealed and opened, the
 * key versions a value is sealed with (`plain` for one in the clear), and whether search hashes go beside it.
 */
interface Holder {
  collection: string;
  field: string;
  query: Document;
  sort: Sort;
  versions(value: unknown): Set<string>;
  open(pii: Pii, value: unknown): unknown;
  seal(pii: Pii, plain: unknown): unknown;
  hashes?: (pii: Pii, plain: unknown) => Record<string, string>;
}

const identifiers = (collection: string, field: string, hashes: boolean, query: Document, sort: Sort): Holder => ({
  collection,
  field,
  query,
  sort,
  versions: sealedWith,
  open: openPii,
  seal: sealPii,
  ...(hashes ? { hashes: piiHashes } : {}),
});

/** A secret's holder: the whole field one sealed string (documents without it are left alone). */
const secret = (kind: SecretKind): Holder => ({
  ...SECRET_FIELDS[kind],
  query: {},
  sort: { _id: 1 },
  versions: (v) => new Set(typeof v === 'string' ? [Pii.versionOf(v) ?? 'plain'] : []),
  open: (pii, v) => openSecret(pii, kind, v as string),
  seal: (pii, v) => sealSecret(pii, kind, v as string),
});

const HOLDERS: Holder[] = [
  // every tenant's, in the order of the _id index (the tenants' own indexes lead with the tenant)
  identifiers('rollen', 'betrokkeneIdentificatie', true, LIVE, { _id: 1 }),
  identifiers('zaakobjecten', 'objectIdentificatie', true, LIVE, { _id: 1 }),
  identifiers(AUDITTRAIL_COLLECTION, 'wijzigingen', false, {}, { _id: 1 }),
  secret('credential'),
  secret('doelregistratie'),
  secret('abonnement'),
  secret('adminTotp'),
  secret('adminEnrolment'),
  secret('importBron'),
];

/** Updates sent to the store together: one journal write (and fsync) for each batch instead of each document. */
const RESEAL_BATCH = 500;

/**
 * Seals with the newest key every identifier that is in the clear (stored by an earlier version) or sealed with an
 * older key, in the rollen, the zaakobjecten and the audit trail, with the search hashes of the newest key, and every
 * secret the platform reads back (client secrets, transfer targets' secrets, abonnementen's Authorization headers). Each
 * document is one update, made only if it is still as it was read: a run cut short is taken up by the next, and two
 * at once do no harm. The updates go in unordered batches (one at a time, each waited for, by document a write of 2 to
 * 8 ms: 6,000 rollen took 12 to 45 s). Returns how many documents it found to reseal and how many it changed (a
 * document changed meanwhile is left to the next run); `progress` hears of every 1,000.
 */
export async function resealValues(db: Db, pii: Pii, progress: (n: number) => void = () => undefined): Promise<{ found: number; changed: number }> {
  let n = 0;
  let found = 0;
  for (const h of HOLDERS) {
    const { collection, field } = h;
    const coll = db.collection<Document>(collection);
    let batch: AnyBulkWriteOperation<Document>[] = [];
    const flush = async () => {
      if (!batch.length) return;
      const before = n;
      n += (await coll.bulkWrite(batch, { ordered: false })).modifiedCount;
      batch = [];
      if (Math.floor(n / 1000) > Math.floor(before / 1000)) progress(n - (n % 1000));
    };
    for await (const doc of coll.find(h.query, { projection: { [field]: 1, [PII_HASHES]: 1 } }).sort(h.sort)) {
      const versions = h.versions(doc[field]);
      const stale = [...versions].some((v) => v !== pii.current) || (h.hashes && doc[PII_HASHES] === undefined);
      if (!stale) continue;
      found++;
      const plain = h.open(pii, doc[field]);
      const set: Document = { [field]: h.seal(pii, plain) };
      if (h.hashes) set[PII_HASHES] = h.hashes(pii, plain);
      batch.push({ updateOne: { filter: { _id: doc._id, [field]: doc[field] }, update: { $set: set } } });
      if (batch.length === RESEAL_BATCH) await flush();
    }
    await flush();
  }
  return { found, changed: n };
}

/**
 * At start: seals what an earlier version stored in the clear (identifiers and secrets), once per database (the mark
 * in `migrations`); a run cut short is taken up by the next start (see resealValues). Returns how many documents
 * it sealed.
 */
export async function sealEarlierValues(db: Db, pii: Pii, log: Logger): Promise<number> {
  const marks = db.collection<{ _id: string; at: Date }>('migrations');
  const id = 'pii.sealed';
  if (await marks.findOne({ _id: id })) return 0;
  const { changed } = await resealValues(db, pii, (done) =>
    log.info({ sealed: done }, 'sealing personal identifiers and secrets stored in the clear'),
  );
  await marks.updateOne({ _id: id }, { $setOnInsert: { at: new Date() } }, { upsert: true });
  if (changed) log.info({ sealed: changed }, 'sealed the personal identifiers and secrets an earlier version stored in the clear');
  return changed;
}
