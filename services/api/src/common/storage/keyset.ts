import { createHash } from 'node:crypto';
import { BSON, type Document, type Filter, type Sort } from 'mongodb';
import { makeRoom } from '@zgw/shared';

const { EJSON } = BSON;

/**
 * Keyset continuation behind `?page=N`. A list is sorted by some fields and always ends with `_id`, so every
 * document has a unique position key: the values of the sort fields. The `next` and `previous` links of a page carry
 * the key of its last or first document (`cursor`), and the page they lead to is an index seek from that key instead
 * of a skip over every document before it: page 5,000 costs what page 2 costs.
 *
 * MongoDB sorts a missing field and null first (before every string or date), so a key may hold null; the
 * conditions below keep such documents in their place without `$ne`, which no index bounds.
 */
export type SortKey = unknown[];
export type Direction = 'after' | 'before';

export interface Cursor {
  dir: Direction;
  key: SortKey;
}

/** The sort as [field, 1 | -1] pairs. */
export function sortFields(sort: Sort): [string, 1 | -1][] {
  return Object.entries(sort as Record<string, number>).map(([f, d]) => [f, d < 0 ? -1 : 1]);
}

export function reverse(sort: Sort): Sort {
  return Object.fromEntries(sortFields(sort).map(([f, d]) => [f, -d as 1 | -1])) as Sort;
}

export function keyOf(doc: Document, sort: Sort): SortKey {
  return sortFields(sort).map(([f]) => doc[f] ?? null);
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(EJSON.stringify({ d: c.dir === 'after' ? 'a' : 'b', k: c.key }, { relaxed: false })).toString('base64url');
}

/** The cursor in a link, or undefined when it is absent or not one of ours for this sort (then `page` alone counts). */
export function decodeCursor(raw: unknown, sort: Sort): Cursor | undefined {
  if (typeof raw !== 'string' || !raw || raw.length > 4096) return undefined;
  try {
    const v = EJSON.parse(Buffer.from(raw, 'base64url').toString('utf8'), { relaxed: false }) as { d?: unknown; k?: unknown };
    if ((v.d !== 'a' && v.d !== 'b') || !Array.isArray(v.k) || v.k.length !== sortFields(sort).length) return undefined;
    if (v.k.some((x) => x !== null && typeof x !== 'string' && typeof x !== 'number' && !(x instanceof Date))) return undefined;
    return { dir: v.d === 'a' ? 'after' : 'before', key: v.k };
  } catch {
    return undefined;
  }
}

/** The smallest non-null value of a field's type: `_created` is a date, every other sort field a string. */
function lowest(field: string): unknown {
  return field === '_created' ? new Date(-8_640_000_000_000_000) : '';
}

/**
 * The documents strictly after `key` in `sort` order: for sort (a, b, _id) the union of {a > ka}, {a = ka, b > kb}
 * and {a = ka, b = kb, _id > kid}. "After" in a descending field means smaller; null sorts below every value.
 */
export function afterKey(sort: Sort, key: SortKey): Filter<Document> {
  const fields = sortFields(sort);
  const branches: Document[] = [];
  fields.forEach(([field, dir], i) => {
    const equal: Document = {};
    for (let j = 0; j < i; j++) equal[fields[j]![0]] = key[j] ?? null;
    const v = key[i] ?? null;
    if (dir === 1) {
      // ascending: null first, then values
      branches.push({ ...equal, [field]: v === null ? { $gte: lowest(field) } : { $gt: v } });
    } else if (v !== null) {
      // descending: values from high to low, then null
      branches.push({ ...equal, [field]: { $lt: v } });
      branches.push({ ...equal, [field]: null });
    }
  });
  return branches.length === 1 ? branches[0]! : { $or: branches };
}

/**
 * A stable short identity of a list query (collection, filter, sort), for remembering its page boundaries. The filter
 * is the one sent, with the tenant of a tenant's collection in it (scopedFilter): boundaries are a tenant's.
 */
export function querySignature(collection: string, filter: Filter<Document>, sort: Sort): string {
  return createHash('sha1').update(collection).update(EJSON.stringify(filter)).update(JSON.stringify(sort)).digest('base64url');
}

/**
 * Page boundaries seen recently, per list query (querySignature: with the tenant): page p -> the key of the last
 * document of page p - 1. A direct `?page=N` beyond the skip bound seeks from the nearest boundary at or below N.
 * Bounded (least recently used out).
 */
export class PageAnchors {
  private readonly queries = new Map<string, Map<number, SortKey>>();

  constructor(
    private readonly maxQueries = 1000,
    private readonly maxPerQuery = 2000,
  ) {}

  set(sig: string, page: number, key: SortKey): void {
    let pages = this.queries.get(sig);
    if (pages) this.queries.delete(sig);
    else pages = new Map();
    makeRoom(this.queries, this.maxQueries);
    this.queries.set(sig, pages);
    if (!pages.has(page)) makeRoom(pages, this.maxPerQuery);
    pages.set(page, key);
  }

  /** The nearest remembered boundary at or below `page`. */
  nearest(sig: string, page: number): { page: number; key: SortKey } | undefined {
    const pages = this.queries.get(sig);
    let best: { page: number; key: SortKey } | undefined;
    for (const [p, key] of pages ?? []) if (p <= page && (!best || p > best.page)) best = { page: p, key };
    return best;
  }
}
