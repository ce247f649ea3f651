import type { FilterShape, IndexShape, QueryShape, SortShape } from './query-shapes';
import { isTenantCollection, TENANT_FIELD } from './tenant';

/**
 * Whether a declared index serves a query shape, by the rule MongoDB's planner follows (ESR): the index starts with
 * the equality fields (any order), then the sort fields in sort order (all in the index's direction or all reversed),
 * then the range fields. Every condition must be bounded by that prefix, except the residual conditions listed below.
 * `$in` is equality without a sort and range with one; `$and` is flattened; `$or` is distributed over the rest of
 * the filter and every branch must be served on its own. A condition on `_id` by equality or `$in`, or on all
 * fields of a unique index, reads at most a few documents: such a query is served whatever else it holds.
 * A geospatial condition counts as a range on a `2dsphere`/`2d` index field, which serves nothing else.
 * A partial index counts only when its filter is `{field: {$exists: true}}` (per field) and the query's condition on
 * each such field guarantees the field exists (as for a sparse index): then every matching document is in it.
 */

/**
 * Conditions allowed as residual filters (applied to the documents an index found, never bounding it): keep this
 * list minimal, each entry justified.
 * - `_tombstone: {$exists: false}` (Store's LIVE) is on every read of a resource collection. A tombstone lives only
 *   until the relay has published its events (milliseconds), so the condition rejects almost none of the documents
 *   the index finds. (It does keep counts from being answered from the index alone: each counted key is fetched.)
 */
export const RESIDUAL_ALLOWED: Readonly<Record<string, readonly string[]>> = {
  _tombstone: ['absent'],
};

/**
 * Residual conditions allowed only beside an equality on a field that bounds the query to a handful of documents,
 * by condition kind and that field:
 * - `regex` beside `zaak`: a case-insensitive containment (`__icontains`, the zaaknotities' filters), which no B-tree
 *   index can bound, on the notes of one zaak. The API refuses those filters without the zaak.
 */
export const RESIDUAL_BESIDE: Readonly<Record<string, string>> = { regex: 'zaak' };

/**
 * The platform-level queries of tenants' collections that may run without the tenant (tenant.ts), by where they are
 * sent from (a code site of the query log), each with why:
 */
export const PLATFORM_QUERY_SITES: readonly (readonly [RegExp, string])[] = [
  [/OutboxRelay\./, "the outbox relay publishes every tenant's events (by the outbox pointers, by _id)"],
  [/Store\.(pending|withEvents|published)\b/, "the relay's reads and clean-up of events, by _id or its scan flag"],
  [/Store\.recount\b/, "the repair of maintained counts at start, every tenant's buckets"],
  [/Resource\.settle\b/, 'unfinished creates of every tenant, finished at start each within its tenant'],
  [/services\/(notifier|audit)\//, 'the workers serve every tenant: each entry and delivery carries its own'],
  [/sweep|retention|Retention/i, 'the retention and clean-up sweeps'],
  [/admin\/tenants/, "the platform administrators' counts per tenant (each by its tenant)"],
  [/resealValues|sealEarlierValues/, "sealing personal identifiers with the newest key: every tenant's, by _id"],
  [/backfillObjecten/, "a one-time migration of the documents' links, every tenant's, by _id"],
  [/WriteBatcher\.send/, "the write batcher's round trips: each write was made its tenant's when it was queued"],
  [/services\/transfer\/[^ ]*importen\//, "the registration import's worker: the type mappings of its runs (importen_typen), by run or _id"],
  [/CatalogusUitwisseling\.plan\b/, 'an import checks whether its UUIDs are taken in any tenant (UUIDs are global), by _id'],
  [/Resource\.(importeer|gehouden)\b/, 'the registration import checks whether a UUID is held in any tenant (UUIDs are global), by _id'],
  [/TenantRemoval\.remove\b/, 'removing an organisation: what its import runs kept in importen_typen, which names the run, not the tenant (by run)'],
];

/**
 * Platform-level queries that may scan (no index bounds them), by site: one-time migrations run once per database or
 * offline by an operator. Keep this list minimal.
 */
export const PLATFORM_SCANS: readonly (readonly [RegExp, string])[] = [
  [/upgradeToTenants/, 'the upgrade to tenants adopts the objects without a tenant, once'],
  [/Tenants\.rename/, 'renaming a tenant (npm run admin -- tenant-rename, with the API stopped)'],
  [
    /TenantRemoval\.scanByTenant\b/,
    "removing an organisation (tenant-remove, once): its administrators' sessions and pending logins and the notifier's deliveries to its abonnementen, in platform collections that retention keeps small",
  ],
];

const fromOnly = (sites: string[], allowed: readonly (readonly [RegExp, string])[]) =>
  sites.length > 0 && sites.every((site) => allowed.some(([re]) => re.test(site)));

/** Whether every conjunction of the filter names the tenant by equality. */
function namesTenant(filter: FilterShape): boolean {
  try {
    return conjunctions(filter).every((c) => c.get(TENANT_FIELD)?.has('eq'));
  } catch {
    return false;
  }
}

/**
 * The largest skip a query may use: MongoDB reads (and fetches) every skipped document, so a skip costs as much as
 * returning them. 10,000 is page 101 at the API's 100 per page, a few tens of milliseconds; deeper pages must use a
 * keyset continuation (a range on the sort fields) instead.
 */
export const MAX_SKIP = 10_000;

/** More `$or` combinations than this (nested `$or`s multiply) are not planned branch by branch. */
export const MAX_BRANCHES = 64;

export const ID_INDEX: IndexShape = { coll: '', op: 'createIndexes', key: [['_id', 1]], unique: true };

export interface Verdict {
  ok: boolean;
  /** Why no declared index serves the shape (one line per problem). */
  reasons: string[];
}

/** One conjunction of field conditions (a `$or` branch with the rest of the filter), field -> kinds. */
export type Conjunction = Map<string, Set<string>>;

type Bound = 'E' | 'IN' | 'R' | 'G' | 'X';

const EQUALITY = new Set(['eq', 'null', 'all']);
const RANGE = new Set(['range', 'not-range', 'exists', 'prefix']);
/** Geospatial conditions: bounded only by a `2dsphere` or `2d` index field, which serves nothing else. */
const GEO = new Set(['geoWithin', 'geoIntersects', 'near', 'nearSphere']);
/** Kinds that guarantee the field exists (so a sparse index holds every matching document). */
const EXISTING = new Set(['eq', 'all', 'in', 'range', 'exists', 'prefix', ...GEO]);

const isGeoKey = (d: number | string) => d === '2dsphere' || d === '2d';

function merge(a: Conjunction, b: Conjunction): Conjunction {
  const out: Conjunction = new Map([...a].map(([k, v]) => [k, new Set(v)]));
  for (const [k, v] of b) {
    const kinds = out.get(k) ?? new Set<string>();
    for (const x of v) kinds.add(x);
    out.set(k, kinds);
  }
  return out;
}

function cross(as: Conjunction[], bs: Conjunction[]): Conjunction[] {
  const out: Conjunction[] = [];
  for (const a of as) for (const b of bs) out.push(merge(a, b));
  if (out.length > MAX_BRANCHES) throw new Error(`more than ${MAX_BRANCHES} $or combinations`);
  return out;
}

/** Every field named anywhere below a `$nor` (none of them can bound an index). */
function norFields(branches: FilterShape[], into: Conjunction): void {
  for (const b of branches) {
    for (const [k, v] of Object.entries(b)) {
      if (Array.isArray(v)) norFields(v, into);
      else into.set(k, new Set(['nor']));
    }
  }
}

/** The filter as a disjunction of conjunctions: `$and` flattened, each `$or` distributed over the rest. */
export function conjunctions(filter: FilterShape): Conjunction[] {
  let result: Conjunction[] = [new Map()];
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and') for (const b of v as FilterShape[]) result = cross(result, conjunctions(b));
    else if (k === '$or')
      result = cross(
        result,
        (v as FilterShape[]).flatMap((b) => conjunctions(b)),
      );
    else if (k === '$nor') {
      const c: Conjunction = new Map();
      norFields(v as FilterShape[], c);
      result = cross(result, [c]);
    } else result = cross(result, [new Map([[k, new Set(String(v).split('+'))]])]);
  }
  return result;
}

function boundOf(kinds: Set<string>): Bound {
  if ([...kinds].some((k) => EQUALITY.has(k))) return 'E';
  if ([...kinds].some((k) => GEO.has(k))) return 'G';
  if (kinds.has('in') || kinds.has('in-null')) return 'IN';
  if ([...kinds].some((k) => RANGE.has(k))) return 'R';
  return 'X';
}

function isResidual(field: string, kinds: Set<string>, c: Conjunction): boolean {
  const allowed = RESIDUAL_ALLOWED[field];
  if (allowed && [...kinds].every((k) => allowed.includes(k))) return true;
  return [...kinds].every((k) => RESIDUAL_BESIDE[k] !== undefined && c.get(RESIDUAL_BESIDE[k]!)?.has('eq'));
}

function keyText(key: SortShape): string {
  return `{${key.map(([f, d]) => `${f}: ${typeof d === 'string' ? JSON.stringify(d) : d}`).join(', ')}}`;
}

interface Layout {
  eq: Set<string>;
  sort: SortShape;
  /** Range and geospatial fields (the latter also in `geo`). */
  range: Set<string>;
  geo: Set<string>;
}

/** Why `ix` does not serve the layout (undefined: it does), and how many leading index fields matched. */
function fit(ix: IndexShape, layout: Layout, c: Conjunction): { reason?: string; matched: number } {
  const keys = ix.key;
  if (ix.partial) {
    const filter = Object.entries(ix.partialFilter ?? {});
    const implied = filter.length > 0 && filter.every(([f, k]) => k === 'exists' && [...(c.get(f) ?? [])].some((x) => EXISTING.has(x)));
    if (!implied)
      return { reason: 'a partial index whose filter the query does not imply (only {field: {$exists: true}} filters are considered)', matched: 0 };
  }
  if (ix.sparse && !keys.some(([f]) => [...(c.get(f) ?? [])].some((k) => EXISTING.has(k)))) {
    return { reason: 'sparse: it lacks documents without its fields, and the query does not exclude them', matched: 0 };
  }
  // A geospatial index holds only documents with a geometry, so it serves only a geospatial condition on it.
  const geoKey = keys.find(([, d]) => isGeoKey(d));
  if (geoKey && !layout.geo.has(geoKey[0]))
    return { reason: `a ${geoKey[1]} index: it serves only a geospatial condition on ${geoKey[0]}`, matched: 0 };
  let i = 0;
  const eq = new Set(layout.eq);
  while (i < keys.length && eq.has(keys[i]![0]) && (typeof keys[i]![1] === 'number' || keys[i]![1] === 'hashed')) eq.delete(keys[i++]![0]);
  if (eq.size) {
    const next = keys[i]?.[0];
    return { reason: `equality on ${[...eq].join(', ')} is not in its prefix${next ? ` (${next} comes first)` : ''}`, matched: i };
  }
  let direction = 0;
  for (const [f, d] of layout.sort) {
    const k = keys[i];
    if (!k || k[0] !== f) return { reason: `sort on ${f} needs an in-memory SORT: the index has ${k ? k[0] : 'no field'} there`, matched: i };
    if (typeof k[1] !== 'number') return { reason: `sort on ${f}: a ${k[1]} index field cannot sort`, matched: i };
    const m = k[1] === d ? 1 : -1;
    if (direction && m !== direction)
      return { reason: `sort directions on ${layout.sort.map(([s]) => s).join(', ')} are neither the index's nor all reversed`, matched: i };
    direction = m;
    i++;
  }
  const range = new Set([...layout.range].filter((f) => !layout.sort.some(([s]) => s === f)));
  const fitsRange = ([f, d]: [string, number | string]) => range.has(f) && (layout.geo.has(f) ? isGeoKey(d) : typeof d === 'number');
  while (i < keys.length && fitsRange(keys[i]!)) range.delete(keys[i++]![0]);
  if (range.size) {
    const next = keys[i]?.[0];
    return { reason: `range on ${[...range].join(', ')} is not next after the equality and sort fields${next ? ` (${next} is)` : ''}`, matched: i };
  }
  return { matched: i };
}

function conjunctionText(c: Conjunction): string {
  return `{${[...c].map(([f, k]) => `${f}: ${[...k].join('+')}`).join(', ')}}`;
}

/** Whether one conjunction with this sort is served by one of `indexes`; the reasons when not. */
export function checkConjunction(c: Conjunction, sort: SortShape, indexes: IndexShape[]): string[] {
  const bounds = new Map([...c].map(([f, k]) => [f, boundOf(k)] as const));
  // A point lookup: _id, or every field of a unique index, by equality or $in.
  const pointed = (f: string, sparse?: boolean) => {
    const b = bounds.get(f);
    const kinds = c.get(f);
    return (b === 'E' || b === 'IN') && (!sparse || [...kinds!].every((k) => k !== 'null' && k !== 'in-null'));
  };
  if (pointed('_id')) return [];
  // (a partial unique index whose filter is only that its fields exist holds every document such a lookup can find)
  const holdsPointed = (ix: IndexShape) =>
    !ix.partial || Object.entries(ix.partialFilter ?? {}).every(([f, k]) => k === 'exists' && ix.key.some(([x]) => x === f));
  if (indexes.some((ix) => ix.unique && holdsPointed(ix) && ix.key.every(([f]) => pointed(f, ix.sparse)))) return [];

  const unbounded = [...c].filter(([f, k]) => bounds.get(f) === 'X' && !isResidual(f, k, c));
  if (unbounded.length) {
    return unbounded.map(([f, k]) => `${f}: ${[...k].join('+')} cannot bound an index and is not an allowed residual condition`);
  }
  const eq = new Set([...bounds].filter(([, b]) => b === 'E').map(([f]) => f));
  const sortRest = sort.filter(([f]) => !eq.has(f));
  const layout: Layout = { eq, sort: sortRest, range: new Set(), geo: new Set() };
  for (const [f, b] of bounds) {
    if (b === 'IN') (sortRest.length ? layout.range : layout.eq).add(f);
    else if (b === 'R') layout.range.add(f);
    else if (b === 'G') {
      layout.range.add(f);
      layout.geo.add(f);
    }
  }
  if (!layout.eq.size && !layout.sort.length && !layout.range.size) {
    return ['no condition an index can bound and no sort: a collection scan'];
  }
  const fits = indexes.map((ix) => ({ ix, ...fit(ix, layout, c) }));
  if (fits.some((f) => !f.reason)) return [];
  const wanted =
    `needs an index on equality {${[...layout.eq].join(', ')}}` +
    (layout.sort.length ? `, then sort ${keyText(layout.sort)}` : '') +
    (layout.range.size ? `, then range {${[...layout.range].join(', ')}}` : '');
  const closest = fits
    .filter((f) => f.matched > 0)
    .sort((a, b) => b.matched - a.matched)
    .slice(0, 3);
  const declared = indexes.filter((ix) => ix !== ID_INDEX).map((ix) => keyText(ix.key));
  return [
    `${conjunctionText(c)} ${wanted}`,
    ...(closest.length
      ? closest.map((f) => `  closest: ${keyText(f.ix.key)}: ${f.reason}`)
      : [`  no declared index starts with these fields (declared: ${declared.join(' ') || 'only {_id: 1}'})`]),
  ];
}

/** The verdict on one query shape against the indexes declared for its collection (the _id index is implied). */
export function checkQuery(shape: QueryShape, declared: IndexShape[]): Verdict {
  const reasons: string[] = [];
  if (shape.skip !== undefined && shape.skip > MAX_SKIP)
    reasons.push(`skip ${shape.skip} is above the bound of ${MAX_SKIP}: use a keyset continuation`);
  if (shape.op === 'count' && shape.stages?.[0] === 'metadata') return { ok: !reasons.length, reasons };
  const indexes = [ID_INDEX, ...declared];
  let branches: Conjunction[];
  try {
    branches = conjunctions(shape.filter);
  } catch (err) {
    return { ok: false, reasons: [...reasons, (err as Error).message] };
  }
  const many = branches.length > 1;
  for (const c of branches) {
    const why = checkConjunction(c, shape.sort ?? [], indexes);
    if (why.length) reasons.push(...(many ? [`$or branch ${conjunctionText(c)}:`, ...why.map((w) => `  ${w}`)] : why));
  }
  return { ok: !reasons.length, reasons };
}

function filterText(f: FilterShape): string {
  return `{${Object.entries(f)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.map(filterText).join(', ')}]` : v}`)
    .join(', ')}}`;
}

/** One line for a shape: `find zaaktypen {catalogus: eq} sort {_created: 1, _id: 1} limit`. */
export function shapeText(shape: QueryShape, maxSkip?: number): string {
  return [
    shape.op,
    shape.coll,
    filterText(shape.filter),
    shape.sort?.length ? `sort ${keyText(shape.sort)}` : '',
    shape.stages?.length ? `stages ${shape.stages.join(',')}` : '',
    shape.limit ? 'limit' : '',
    maxSkip ? `skip (largest ${maxSkip})` : '',
    shape.multi ? 'multi' : '',
    shape.upsert ? 'upsert' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** The identity of a shape for counting: everything but the skip value and where it was sent from. */
export function shapeKey(shape: QueryShape): string {
  const { coll, op, filter, sort, limit, stages, multi, upsert } = shape;
  return JSON.stringify({ coll, op, filter, sort, limit, stages, multi, upsert, skip: shape.skip !== undefined });
}

export interface CheckedShape {
  shape: QueryShape;
  maxSkip: number;
  sites: string[];
  verdict: Verdict;
}

export interface Report {
  shapes: CheckedShape[];
  failed: CheckedShape[];
  ignoredTestProbes: number;
}

type Line = (QueryShape | IndexShape) & { origin?: string; sites?: string[] };

/** Checks every recorded query of the API against the indexes the API declared (test files' own probes ignored). */
export function checkLog(lines: Line[]): Report {
  const indexes = new Map<string, IndexShape[]>();
  const shapes = new Map<string, CheckedShape>();
  const probes = new Set<string>();
  for (const line of lines) {
    if (line.op !== 'createIndexes' || line.origin === 'test') continue;
    const list = indexes.get(line.coll) ?? [];
    const ix = line as IndexShape;
    const idOf = (x: IndexShape) => JSON.stringify([x.key, !!x.unique, !!x.sparse, x.partial ? (x.partialFilter ?? true) : false]);
    const id = idOf(ix);
    if (!list.some((x) => idOf(x) === id)) list.push(ix);
    indexes.set(line.coll, list);
  }
  for (const line of lines) {
    if (line.op === 'createIndexes') continue;
    const shape = line as QueryShape;
    const key = shapeKey(shape);
    if (line.origin === 'test') {
      probes.add(key);
      continue;
    }
    let entry = shapes.get(key);
    if (!entry) {
      entry = { shape, maxSkip: 0, sites: [], verdict: { ok: true, reasons: [] } };
      shapes.set(key, entry);
    }
    entry.maxSkip = Math.max(entry.maxSkip, shape.skip ?? 0);
    const site = (line.sites ?? []).join(' < ');
    if (site && !entry.sites.includes(site)) entry.sites.push(site);
  }
  for (const entry of shapes.values()) {
    entry.verdict = checkQuery({ ...entry.shape, skip: entry.maxSkip || entry.shape.skip }, indexes.get(entry.shape.coll) ?? []);
    if (!entry.verdict.ok && fromOnly(entry.sites, PLATFORM_SCANS)) entry.verdict = { ok: true, reasons: [] };
    // A tenant's collection is read and written by the tenant, except by the platform-level sites named above.
    if (isTenantCollection(entry.shape.coll) && !namesTenant(entry.shape.filter)) {
      if (!fromOnly(entry.sites, [...PLATFORM_QUERY_SITES, ...PLATFORM_SCANS]))
        entry.verdict = {
          ok: false,
          reasons: [
            ...entry.verdict.reasons,
            `no ${TENANT_FIELD}: a query of a tenant's collection outside the platform-level sites (PLATFORM_QUERY_SITES)`,
          ],
        };
    }
  }
  const all = [...shapes.values()];
  return { shapes: all, failed: all.filter((s) => !s.verdict.ok), ignoredTestProbes: probes.size };
}
