// Where personal identifiers sit in the resources, and how a resource keeps them sealed at rest (shared/src/pii.ts):
// the identification of a natural person (a rol's betrokkeneIdentificatie, a zaakobject's objectIdentificatie, and the
// natuurlijkPersoon a zakelijk_recht names) is stored with these fields encrypted, wherever they are nested, and with
// a search hash of each beside it (`_pii`), which the filters look up. Reads open them again.
import type { Pii } from '@zgw/shared';
import type { JsonObject } from './schema-parts';

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

/** A copy of `value` with every identifier encrypted; the field name is the encryption's context. */
export function sealPii(pii: Pii, value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => sealPii(pii, v, depth + 1));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = PII_FIELDS.has(k) && typeof v === 'string' && v !== '' ? pii.encrypt(v, k) : sealPii(pii, v, depth + 1);
  }
  return out;
}

/** A copy of `value` with every sealed identifier opened (values stored in the clear by an earlier version pass). */
export function openPii(pii: Pii, value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => openPii(pii, v, depth + 1));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = PII_FIELDS.has(k) && typeof v === 'string' && v.startsWith('pii:') ? pii.decrypt(v, k) : openPii(pii, v, depth + 1);
  }
  return out;
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
