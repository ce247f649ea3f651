import { appendFileSync, mkdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { MongoClient } from 'mongodb';
import type { JsonObject } from './zgw-client';

/**
 * Query shapes for the index check of `npm test` (scripts/query-check.js, rules in query-rules.ts): with
 * `ZGW_QUERY_LOG=<dir>`, connectMongo records every query and index declaration its client sends, one JSON line per
 * distinct shape, in a file per process. A shape holds keys and operator kinds only, never a value, so no BSN,
 * secret or identifier can reach the log. Unset, nothing is recorded and the client is built as before.
 */

/** A field condition: `eq`, `null`, `in`, `range`, `not-range`, `exists`, `absent`, `ne`, ... (several joined by `+`). */
export type FieldKind = string;

export interface FilterShape {
  [field: string]: FieldKind | FilterShape[];
}

export type SortShape = [string, number | string][];

export interface QueryShape {
  coll: string;
  /** find | aggregate | count | distinct | update | delete | findAndModify */
  op: string;
  filter: FilterShape;
  sort?: SortShape;
  skip?: number;
  limit?: boolean;
  /** Aggregation stage names, in order (countDocuments: $match, $skip?, $limit?, $group). */
  stages?: string[];
  /** update: many documents; delete: more than one; both: upsert. */
  multi?: boolean;
  upsert?: boolean;
}

export interface IndexShape {
  coll: string;
  op: 'createIndexes';
  key: SortShape;
  unique?: boolean;
  sparse?: boolean;
  partial?: boolean;
  /** The shape of a partial index's filter (see query-rules: only `$exists: true` filters can serve a query). */
  partialFilter?: FilterShape;
}

export type CommandShape = QueryShape | IndexShape;

const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);

function isPlainDoc(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof RegExp) && !('_bsontype' in v);
}

function isRegex(v: unknown): boolean {
  return v instanceof RegExp || (typeof v === 'object' && v !== null && (v as { _bsontype?: string })._bsontype === 'BSONRegExp');
}

/** `^abc` without the i flag can use index bounds; other patterns cannot. Only that fact is kept. */
function regexKind(v: unknown, options?: unknown): FieldKind {
  const source = v instanceof RegExp ? v.source : typeof v === 'string' ? v : String((v as { pattern?: string })?.pattern ?? '');
  const flags = v instanceof RegExp ? v.flags : String(options ?? (v as { options?: string })?.options ?? '');
  return source.startsWith('^') && !flags.includes('i') ? 'prefix' : 'regex';
}

/** The kind of one field condition: the operators used, never the values. */
export function conditionKind(value: unknown): FieldKind {
  if (value === null || value === undefined) return 'null';
  if (isRegex(value)) return regexKind(value);
  if (!isPlainDoc(value)) return 'eq';
  const ops = Object.keys(value);
  if (!ops.length || !ops.every((k) => k.startsWith('$'))) return 'eq';
  const kinds = new Set<string>();
  for (const op of ops) {
    const arg = value[op];
    if (op === '$eq') kinds.add(arg === null || arg === undefined ? 'null' : 'eq');
    else if (op === '$in') kinds.add(Array.isArray(arg) && arg.some((a) => a === null) ? 'in-null' : 'in');
    else if (RANGE.has(op)) kinds.add('range');
    else if (op === '$exists') kinds.add(arg ? 'exists' : 'absent');
    else if (op === '$regex') kinds.add(regexKind(arg, value.$options));
    else if (op === '$options') continue;
    // `$not` of comparisons has index bounds (their complement, which includes null and missing).
    else if (op === '$not' && isPlainDoc(arg) && Object.keys(arg).length && Object.keys(arg).every((k) => RANGE.has(k))) kinds.add('not-range');
    else kinds.add(op.slice(1)); // ne, nin, not, elemMatch, all, size, type, mod, ...
  }
  return [...kinds].sort().join('+');
}

function branchKey(b: FilterShape): string {
  return JSON.stringify(b);
}

/** The shape of a filter: field -> kind; `$or`/`$and`/`$nor` keep their branches, identical branches once. */
export function filterShape(filter: unknown): FilterShape {
  const out: FilterShape = {};
  if (!isPlainDoc(filter)) return out;
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$or' || k === '$and' || k === '$nor') {
      const branches = new Map<string, FilterShape>();
      for (const b of Array.isArray(v) ? v : []) {
        const s = filterShape(b);
        branches.set(branchKey(s), s);
      }
      out[k] = [...branches.values()];
    } else if (k.startsWith('$')) {
      out[k] = 'op'; // $expr, $where, $text, $comment: no index bounds
    } else {
      out[k] = conditionKind(v);
    }
  }
  return out;
}

/** A sort or index key (a Map in the driver's commands, or a plain document) as ordered pairs. */
export function keyShape(key: unknown): SortShape {
  const entries: [string, unknown][] = key instanceof Map ? [...key.entries()] : isPlainDoc(key) ? Object.entries(key) : [];
  return entries.map(([f, d]) => [f, typeof d === 'number' ? (d < 0 ? -1 : 1) : typeof d === 'string' ? d : 1]);
}

function withSort(shape: QueryShape, sort: unknown): QueryShape {
  const s = keyShape(sort);
  if (s.length) shape.sort = s;
  return shape;
}

function aggregateShape(coll: string, pipeline: unknown): QueryShape {
  const stages = Array.isArray(pipeline) ? (pipeline as JsonObject[]) : [];
  const names = stages.map((s) => Object.keys(s)[0] ?? '?');
  const shape: QueryShape = { coll, op: 'aggregate', filter: {}, stages: names };
  // Only the leading $match (and a $sort right after it) can use an index.
  let i = 0;
  if (names[0] === '$match') shape.filter = filterShape(stages[i++]!.$match);
  if (names[i] === '$sort') withSort(shape, stages[i++]!.$sort);
  for (; i < stages.length; i++) {
    if (names[i] === '$skip') shape.skip = Number(stages[i]!.$skip) || 0;
    else if (names[i] === '$limit') shape.limit = true;
    else break;
  }
  return shape;
}

/** The shapes of one command: its queries, or the indexes it declares; nothing for other commands. */
export function commandShapes(command: JsonObject): CommandShape[] {
  const name = Object.keys(command)[0];
  const coll = String(command[name ?? ''] ?? '');
  switch (name) {
    case 'find': {
      const shape: QueryShape = { coll, op: 'find', filter: filterShape(command.filter) };
      withSort(shape, command.sort);
      if (command.skip) shape.skip = Number(command.skip);
      if (command.limit || command.singleBatch) shape.limit = true;
      return [shape];
    }
    case 'aggregate':
      return [aggregateShape(coll, command.pipeline)];
    case 'count':
      // Without a query the server answers from the collection's metadata (estimatedDocumentCount).
      return [{ coll, op: 'count', filter: filterShape(command.query ?? {}), ...(command.query ? {} : { stages: ['metadata'] }) }];
    case 'distinct':
      return [{ coll, op: 'distinct', filter: filterShape(command.query ?? {}) }];
    case 'update':
      return ((command.updates as JsonObject[]) ?? []).map((u) => ({
        coll,
        op: 'update',
        filter: filterShape(u.q),
        ...(u.multi ? { multi: true } : {}),
        ...(u.upsert ? { upsert: true } : {}),
      }));
    case 'delete':
      return ((command.deletes as JsonObject[]) ?? []).map((d) => ({
        coll,
        op: 'delete',
        filter: filterShape(d.q),
        ...(d.limit === 1 ? {} : { multi: true }),
      }));
    case 'findAndModify':
      return [withSort({ coll, op: 'findAndModify', filter: filterShape(command.query), ...(command.upsert ? { upsert: true } : {}) }, command.sort)];
    case 'createIndexes':
      return ((command.indexes as JsonObject[]) ?? []).map((ix) => ({
        coll,
        op: 'createIndexes' as const,
        key: keyShape(ix.key),
        ...(ix.unique ? { unique: true } : {}),
        ...(ix.sparse ? { sparse: true } : {}),
        ...(ix.partialFilterExpression ? { partial: true, partialFilter: filterShape(ix.partialFilterExpression) } : {}),
      }));
    default:
      return [];
  }
}

/** The code that sent a command: the innermost frames of this repository (outside node_modules and this file). */
export function callSites(root: string, self: string): string[] {
  const prevLimit = Error.stackTraceLimit;
  const prevPrepare = Error.prepareStackTrace;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  let stack: NodeJS.CallSite[];
  try {
    Error.stackTraceLimit = 80;
    Error.prepareStackTrace = (_e, sites) => sites;
    Error.captureStackTrace(holder);
    // The stack is formatted when first read: read it while the structured format is in place.
    stack = Array.isArray(holder.stack) ? holder.stack : [];
  } finally {
    Error.stackTraceLimit = prevLimit;
    Error.prepareStackTrace = prevPrepare;
  }
  const out: string[] = [];
  for (const cs of stack) {
    const file = cs.getFileName?.() ?? '';
    if (!file || file.startsWith('node:') || file.includes(`${sep}node_modules${sep}`) || file === self) continue;
    const rel = relative(root, file);
    if (rel.startsWith('..')) continue;
    const fn = cs.getFunctionName?.() ?? '';
    const type = cs.getTypeName?.();
    out.push(
      `${rel.split(sep).join('/')}:${cs.getLineNumber()}:${cs.getColumnNumber()}${fn ? ` ${type && type !== 'Object' ? `${type}.` : ''}${fn}` : ''}`,
    );
    if (out.length === 3) break;
  }
  return out;
}

/** Whether the innermost sender is a test file itself (a test's own probe of the database, not an API query). */
export function fromTest(sites: string[]): boolean {
  return /(^|\/)test\//.test(sites[0] ?? '');
}

const seen = new Set<string>();

/**
 * Records the shapes of every command `client` sends into `<dir>/queries-<pid>.jsonl`, each distinct shape and call
 * site once per process. The client must have been created with `monitorCommands: true`.
 */
export function logQueryShapes(client: MongoClient, dir: string, root = process.cwd()): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `queries-${process.pid}.jsonl`);
  client.on('commandStarted', (event) => {
    try {
      const shapes = commandShapes(event.command as JsonObject);
      if (!shapes.length) return;
      const sites = callSites(root, __filename);
      const origin = fromTest(sites) ? 'test' : 'app';
      let lines = '';
      for (const shape of shapes) {
        const line = JSON.stringify({ ...shape, origin, sites });
        if (seen.has(line)) continue;
        seen.add(line);
        lines += `${line}\n`;
      }
      if (lines) appendFileSync(file, lines);
    } catch {
      // The log serves the test check only; it never breaks a query.
    }
  });
}
