import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyBulkWriteOperation, Collection, Db, Document, Filter, IndexSpecification } from 'mongodb';

/**
 * Tenants: the organisations one installation serves, each named by its RSIN. Every stored object of a tenant carries
 * `_tenant`, and the store adds it to every query through the database handle `tenantDb` returns: within
 * `inTenant(rsin, ...)` every read, count, aggregate, update and delete of a tenant's collection is restricted to that
 * tenant and every insert is stamped with it, whatever component or helper issues it. Outside any tenant (the outbox
 * relay, start-up, sweeps and the platform administrators' views) queries run as written: the query check names the
 * few that may (PLATFORM_QUERY_SITES in query-rules.ts, which scripts/query-check.js applies).
 */
export const TENANT_FIELD = '_tenant';

/** The tenant of clients registered without one (an installation of one organisation): `ZGW_DEFAULT_TENANT`. */
export const DEFAULT_TENANT = '000000000';
export const DEFAULT_TENANT_NAAM = 'standaard';

/**
 * Collections of the platform itself, shared by all tenants: the tenants and credentials (client ids are unique across
 * the installation), the outbox pointers the relay works from, the kanalen (names unique on the platform: the
 * standard's shared, one a client registered its tenant's, naming it in `_tenant`), settings (the platform's, and
 * each tenant's under an id naming it), the administrators' sessions, the markers of one-time migrations, the
 * documents' content files in GridFS (named by random uuids and reached only through a document version, which is its
 * tenant's; moved between stores and swept at platform level), and the notifier's working state (leases, deliveries,
 * kept notifications, lock states and resend requests: keyed by abonnement, which is a tenant's; deliveries and kept
 * notifications name their tenant in `_tenant` too). Everything else belongs to a tenant.
 */
/** The organisations of the installation, one record each by RSIN. */
export const TENANTS_COLLECTION = 'tenants';

export const PLATFORM_COLLECTIONS: ReadonlySet<string> = new Set([
  TENANTS_COLLECTION,
  'credentials',
  'outbox',
  'kanalen',
  'settings',
  'migrations',
  'adminusers',
  'adminsessions',
  'adminlogins',
  'adminoidcflows',
  'nrc_leases',
  'nrc_deliveries',
  'nrc_notificaties',
  'nrc_abonnement_status',
  'nrc_resends',
  'inhoud.files',
  'inhoud.chunks',
  // the registration import's runs and pages: platform administrators' jobs, each naming the tenant it imports into
  'importen',
  'importen_paginas',
  'importen_proef',
  // (and what each run read and brought, per source URL: the cut-over's register and URL map)
  'importen_objecten',
]);

/** Index keys of platform-level sweeps across tenants (the relay's scan, unfinished creates, retention): not prefixed. */
const PLATFORM_INDEX_FIELDS = new Set(['_pending', '_follow', '_inhoud', 'doneAt', 'receivedAt']);

/** Nine digits passing the eleven test (the last digit counts -1). */
export function isRsin(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{9}$/.test(value)) return false;
  const d = value.split('').map(Number);
  const sum = d.slice(0, 8).reduce((s, x, i) => s + x * (9 - i), 0) - d[8]!;
  return sum % 11 === 0;
}

const scope = new AsyncLocalStorage<string>();

/** Runs `fn` as `tenant`: every query through a `tenantDb` handle inside it is that tenant's. */
export function inTenant<T>(tenant: string, fn: () => T): T {
  return scope.run(tenant, fn);
}

/** The tenant the current request or job acts for; undefined at platform level. */
export function currentTenant(): string | undefined {
  return scope.getStore();
}

/** The tenant the current request or job acts for; an error at platform level (work that must be a tenant's). */
export function requireTenant(): string {
  const tenant = scope.getStore();
  if (tenant === undefined) throw new Error('tenant work started at platform level');
  return tenant;
}

/** Runs `fn` at platform level (no tenant), e.g. a sweep started from within a request. */
export function atPlatformLevel<T>(fn: () => T): T {
  return scope.exit(fn);
}

export const isTenantCollection = (name: string): boolean => !PLATFORM_COLLECTIONS.has(name) && !name.startsWith('system.');

/** The filter restricted to `tenant`. */
export function tenantFilter<F extends object>(filter: F | undefined, tenant: string): F {
  return { ...(filter ?? {}), [TENANT_FIELD]: tenant } as F;
}

/** The filter a query of collection `name` runs with here, as a `tenantDb` handle scopes it (for a command sent whole). */
export function scopedFilter<F extends object>(name: string, filter: F): F {
  const tenant = currentTenant();
  return tenant && isTenantCollection(name) ? tenantFilter(filter, tenant) : filter;
}

const withTenant = <D extends object>(doc: D, tenant: string): D => ({ ...doc, [TENANT_FIELD]: tenant });

/** One bulk write operation as `tenant`'s: its filter restricted, what it inserts stamped. */
export function tenantOp(op: AnyBulkWriteOperation<Document>, tenant: string): AnyBulkWriteOperation<Document> {
  if ('insertOne' in op) return { insertOne: { ...op.insertOne, document: withTenant(op.insertOne.document, tenant) } };
  if ('updateOne' in op) return { updateOne: { ...op.updateOne, filter: tenantFilter(op.updateOne.filter, tenant) } };
  if ('updateMany' in op) return { updateMany: { ...op.updateMany, filter: tenantFilter(op.updateMany.filter, tenant) } };
  if ('replaceOne' in op)
    return {
      replaceOne: {
        ...op.replaceOne,
        filter: tenantFilter(op.replaceOne.filter, tenant),
        replacement: withTenant(op.replaceOne.replacement, tenant),
      },
    };
  if ('deleteOne' in op) return { deleteOne: { ...op.deleteOne, filter: tenantFilter(op.deleteOne.filter, tenant) } };
  return { deleteMany: { ...op.deleteMany, filter: tenantFilter(op.deleteMany.filter, tenant) } };
}

/** The key of a tenant collection's index: led by the tenant, unless it serves a platform-level sweep. */
export function tenantIndexKey(key: IndexSpecification, options?: { expireAfterSeconds?: number }): IndexSpecification {
  if (options?.expireAfterSeconds !== undefined || typeof key !== 'object' || Array.isArray(key) || key instanceof Map) return key;
  const fields = Object.keys(key);
  if (fields[0] === TENANT_FIELD || (fields.length === 1 && PLATFORM_INDEX_FIELDS.has(fields[0]!))) return key;
  return { [TENANT_FIELD]: 1, ...key } as IndexSpecification;
}

interface TenantIndexOptions {
  expireAfterSeconds?: number;
  sparse?: boolean;
  partialFilterExpression?: Document;
}

/**
 * The options of an index once led by the tenant. A sparse index leaves out documents without its fields (a
 * tombstone has none); led by the tenant every document has one of its fields, so it becomes a partial index of the
 * documents that have all of them.
 */
function tenantIndexOptions(key: Document, options?: TenantIndexOptions): TenantIndexOptions | undefined {
  if (!options?.sparse) return options;
  const { sparse: _sparse, ...rest } = options;
  const present = Object.fromEntries(Object.keys(key).map((f) => [f, { $exists: true }]));
  return { ...rest, partialFilterExpression: { ...present, ...rest.partialFilterExpression } };
}

type Method = (...args: unknown[]) => unknown;

/** Rewrites the arguments of a collection method for the current tenant; undefined: the method passes through. */
const SCOPED: Record<string, (args: unknown[], tenant: string) => unknown[]> = {
  find: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  findOne: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  countDocuments: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  distinct: ([key, f, ...rest], t) => [key, tenantFilter(f as Filter<Document>, t), ...rest],
  updateOne: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  updateMany: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  deleteOne: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  deleteMany: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  findOneAndUpdate: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  findOneAndDelete: ([f, ...rest], t) => [tenantFilter(f as Filter<Document>, t), ...rest],
  replaceOne: ([f, doc, ...rest], t) => [tenantFilter(f as Filter<Document>, t), withTenant(doc as Document, t), ...rest],
  findOneAndReplace: ([f, doc, ...rest], t) => [tenantFilter(f as Filter<Document>, t), withTenant(doc as Document, t), ...rest],
  insertOne: ([doc, ...rest], t) => [withTenant(doc as Document, t), ...rest],
  insertMany: ([docs, ...rest], t) => [(docs as Document[]).map((d) => withTenant(d, t)), ...rest],
  bulkWrite: ([ops, ...rest], t) => [(ops as AnyBulkWriteOperation<Document>[]).map((op) => tenantOp(op, t)), ...rest],
  aggregate: ([pipeline, ...rest], t) => {
    const stages = (pipeline as Document[]) ?? [];
    const first = stages[0]?.$match as Document | undefined;
    return [first ? [{ $match: tenantFilter(first, t) }, ...stages.slice(1)] : [{ $match: { [TENANT_FIELD]: t } }, ...stages], ...rest];
  },
};

const raws = new WeakMap<object, Db>();

/**
 * The database as tenants see it: collections other than the platform's (PLATFORM_COLLECTIONS) restrict every query
 * to the current tenant (see the top of this file) and lead every index they create with it. `platformDb` gives
 * the handle without restriction back.
 */
export function tenantDb(db: Db): Db {
  if (raws.has(db)) return db;
  const collections = new Map<string, Collection<Document>>();
  const scoped: Db = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'collection')
        return (name: string, options?: object) => {
          if (!isTenantCollection(name)) return target.collection(name, options);
          let coll = collections.get(name);
          if (!coll) collections.set(name, (coll = tenantCollection(target.collection(name, options), scoped)));
          return coll;
        };
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as Method).bind(target) : value;
    },
  });
  raws.set(scoped, db);
  return scoped;
}

/** The database without tenant restrictions (the handle `tenantDb` was made from). */
export function platformDb(db: Db): Db {
  return raws.get(db) ?? db;
}

function tenantCollection(coll: Collection<Document>, db: Db): Collection<Document> {
  return new Proxy(coll, {
    get(target, prop, receiver) {
      if (prop === 'db') return db;
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as Method;
      if (prop === 'createIndex')
        return (key: IndexSpecification, options?: TenantIndexOptions) => {
          const led = tenantIndexKey(key, options);
          return method.call(target, led, led === key ? options : tenantIndexOptions(key as Document, options));
        };
      if (prop === 'estimatedDocumentCount')
        return (options?: object) => {
          const tenant = currentTenant();
          return tenant ? target.countDocuments({ [TENANT_FIELD]: tenant }, options) : method.call(target, options);
        };
      const rewrite = typeof prop === 'string' ? SCOPED[prop] : undefined;
      if (!rewrite) return method.bind(target);
      return (...args: unknown[]) => {
        const tenant = currentTenant();
        return method.apply(target, tenant ? rewrite(args, tenant) : args);
      };
    },
  });
}
