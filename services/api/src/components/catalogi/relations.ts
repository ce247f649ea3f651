import type { Document, Filter, Sort } from 'mongodb';
import { atPlatformLevel, currentTenant, inTenant } from '@zgw/shared';
import type { InvalidParam } from '../../common/http/errors';
import { groupBy } from '../../common/storage/group';
import type { Resource } from '../../common/platform/resource';
import { LIVE, live, type Stored } from '../../common/storage/store';
import { isUrl, resolveLocal } from './context';
import type { CatalogiDoc } from './schemas';

/**
 * The 1.3 history model: a type refers to another type of the same catalogus by its omschrijving (besluittypen,
 * informatieobjecttypen) or identificatie (zaaktypen), so a relation keeps pointing at whatever version is current.
 * Clients may still send URLs; those are turned into the omschrijving/identificatie of the object they point at.
 */
export interface NamedRelations<D extends CatalogiDoc> {
  names: string[];
  /** The objects that were given by URL (for concept and catalogus checks). */
  byUrl: Stored<D>[];
  errors: InvalidParam[];
  /** True when a URL pointed into another catalogus. */
  foreignCatalogus: boolean;
}

export async function namesFromInput<D extends CatalogiDoc>(
  target: Resource<D>,
  field: string,
  nameField: keyof D & string,
  catalogus: string,
  values: readonly string[],
): Promise<NamedRelations<D>> {
  const out: NamedRelations<D> = { names: [], byUrl: [], errors: [], foreignCatalogus: false };
  for (const [i, value] of values.entries()) {
    if (!isUrl(value)) {
      if (!out.names.includes(value)) out.names.push(value);
      continue;
    }
    const r = await resolveLocal(target, `${field}.${i}`, value);
    if (r.error) {
      out.errors.push(r.error);
      continue;
    }
    if (r.doc!.catalogus !== catalogus) out.foreignCatalogus = true;
    const name = String(r.doc![nameField] ?? '');
    if (!out.names.includes(name)) out.names.push(name);
    out.byUrl.push(r.doc!);
  }
  return out;
}

/** Whether an object is valid on `datum` (YYYY-MM-DD); every object is when no datum is asked for. */
export function validOn(doc: Document, datum: string | undefined): boolean {
  if (!datum) return true;
  const begin = doc.beginGeldigheid as string | null | undefined;
  const einde = doc.eindeGeldigheid as string | null | undefined;
  return (!begin || begin <= datum) && (!einde || einde >= datum);
}

/** Today (YYYY-MM-DD, UTC like a zaak's registratiedatum): the date a relation resolves on when none is asked for. */
export function vandaag(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Every stored version in `catalogus` of the objects of `target` whose `nameField` is one of `names`, newest first.
 * For the rules that concern all versions (publishing, deleting); what a relation shows is `versionsOn`'s.
 */
export async function byNames<D extends CatalogiDoc>(
  target: Resource<D>,
  nameField: string,
  catalogus: unknown,
  names: unknown,
): Promise<Stored<D>[]> {
  const list = namesIn(names);
  if (!list.length || typeof catalogus !== 'string') return [];
  // Every version is read, so they are put newest first here: the query then needs no index on the sort.
  const docs = (await target.store.raw.find({ catalogus, [nameField]: { $in: list }, ...LIVE }).toArray()) as Stored<D>[];
  return docs.sort(newestFirst);
}

function namesIn(names: unknown): string[] {
  return Array.isArray(names) ? [...new Set(names.filter((n): n is string => typeof n === 'string' && n !== ''))] : [];
}

/** Latest version first: beginGeldigheid descending (an open begin last), then latest created. */
function newestFirst(a: Document, b: Document): number {
  const x = String(a.beginGeldigheid ?? '');
  const y = String(b.beginGeldigheid ?? '');
  return x !== y ? (x < y ? 1 : -1) : (b._created as Date).getTime() - (a._created as Date).getTime();
}

/**
 * The one version a relation by name resolves to on `datum`: of the versions valid that day, a published one before
 * a concept, then the newest. A version that only becomes valid later is never chosen. When no version is valid on
 * the day there is nothing: the relation is left out, as one whose name has no version yet (DESIGN 6.5). Showing an
 * ended or a future version instead would present it as the one in force; the client that wants another day's
 * picture asks with `datumGeldigheid`.
 */
export function versionOn<T extends Document>(versions: readonly T[], datum: string): T | undefined {
  const valid = versions.filter((v) => validOn(v, datum));
  const published = valid.filter((v) => v.concept === false);
  return [...(published.length ? published : valid)].sort(newestFirst)[0];
}

/** The fields `versionOn` reads. */
const VERSION_FIELDS = ['concept', 'beginGeldigheid', 'eindeGeldigheid', '_created'];

/** Batched loaders of the versions of names, per target, name field and catalogus (see GroupLoader). */
const versionLoaders = new WeakMap<Resource<CatalogiDoc>, Map<string, GroupLoader>>();

function versionLoader(target: Resource<CatalogiDoc>, nameField: string, catalogus: string): GroupLoader {
  let perTarget = versionLoaders.get(target);
  if (!perTarget) versionLoaders.set(target, (perTarget = new Map()));
  const key = `${nameField} ${catalogus}`;
  let loader = perTarget.get(key);
  // Unsorted, like byNames: `versionOn` orders the versions itself.
  if (!loader) perTarget.set(key, (loader = new GroupLoader(target, nameField, VERSION_FIELDS, null, { catalogus })));
  return loader;
}

/**
 * The single resolver of relations by name (the 1.3 history model): for each of `names` that has one, the version
 * in `catalogus` valid on `datum` (default today), by `versionOn`. Detail and list pages, and the Zaken rules on a
 * zaak's startdatum, all resolve through here, so they agree. A page's names are loaded in one query per catalogus.
 */
export async function versionsOn(
  target: Resource<CatalogiDoc>,
  nameField: string,
  catalogus: unknown,
  names: unknown,
  datum: string = vandaag(),
): Promise<Map<string, Document>> {
  const list = namesIn(names);
  const out = new Map<string, Document>();
  if (!list.length || typeof catalogus !== 'string') return out;
  const loader = versionLoader(target, nameField, catalogus);
  const versions = await Promise.all(list.map((n) => loader.load(n)));
  list.forEach((name, i) => {
    const v = versionOn(versions[i]!, datum);
    if (v) out.set(name, v);
  });
  return out;
}

/** `versionsOn` as URLs, in the order of `names`; names without a version on `datum` are left out. */
export async function urlsOn(
  target: Resource<CatalogiDoc>,
  nameField: string,
  catalogus: unknown,
  names: unknown,
  datum?: string,
): Promise<string[]> {
  return [...(await versionsOn(target, nameField, catalogus, names, datum)).values()].map((d) => target.url(String(d._id)));
}

/** URLs of the objects matching a filter, without loading whole documents. */
export async function urlsWhere(target: Resource<CatalogiDoc>, filter: Filter<Document>, sort: Sort = { _created: 1, _id: 1 }): Promise<string[]> {
  const docs = await target.store.raw
    .find(live(filter), { projection: { _id: 1 } })
    .sort(sort)
    .toArray();
  return docs.map((d) => target.url(String(d._id)));
}

/** The distinct values of `field` of the objects matching a filter, in creation order (1.3.3's names beside the URLs). */
export async function valuesWhere(target: Resource<CatalogiDoc>, filter: Filter<Document>, field: string): Promise<string[]> {
  const docs = await target.store.raw
    .find(live(filter), { projection: { [field]: 1 } })
    .sort({ _created: 1, _id: 1 })
    .toArray();
  return distinct(docs.map((d) => d[field]));
}

/** The distinct non-empty strings of a list, in order. */
export function distinct(values: readonly unknown[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
}

type Waiter<V> = { resolve: (v: V) => void; reject: (e: unknown) => void };

/** The key of the platform level (no tenant) among a GroupLoader's waiting keys. */
const PLATFORM = '';

/**
 * Loads, per key, the objects of `target` whose `field` equals that key (and that meet `where`), batching the keys
 * asked for in the same tick into one `$in` query: a list page renders 100 objects at once, and each asks for its
 * parts. With `sort` null the objects come unordered. The keys of a tick may come from requests of several tenants:
 * each tenant's are read as that tenant's, in a query of their own (as ReadBatcher does), never in the tenant of
 * whichever request asked first.
 */
export class GroupLoader {
  /** Waiting keys by tenant (PLATFORM: asked at platform level), then by key. */
  private queue = new Map<string, Map<string, Waiter<Document[]>[]>>();
  private scheduled = false;

  constructor(
    private readonly target: Resource<CatalogiDoc>,
    private readonly field: string,
    private readonly projection: string[] = [],
    private readonly sort: Sort | null = { _created: 1, _id: 1 },
    private readonly where: Filter<Document> = {},
  ) {}

  load(key: string): Promise<Document[]> {
    return new Promise((resolve, reject) => {
      const tenant = currentTenant() ?? PLATFORM;
      let keys = this.queue.get(tenant);
      if (!keys) this.queue.set(tenant, (keys = new Map()));
      const waiting = keys.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else keys.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** URLs of the objects for one key (with `datum`, those valid on that day). */
  async urls(key: string, datum?: string): Promise<string[]> {
    return (await this.load(key)).filter((d) => validOn(d, datum)).map((d) => this.target.url(String(d._id)));
  }

  private async flush(): Promise<void> {
    const batches = this.queue;
    this.queue = new Map();
    this.scheduled = false;
    await Promise.all(
      [...batches].map(([tenant, batch]) =>
        tenant === PLATFORM ? atPlatformLevel(() => this.send(batch)) : inTenant(tenant, () => this.send(batch)),
      ),
    );
  }

  /** One query for the keys of one tenant (within it: the store adds the tenant), answering each key's waiters. */
  private async send(batch: Map<string, Waiter<Document[]>[]>): Promise<void> {
    try {
      const fields = ['_id', this.field, 'beginGeldigheid', 'eindeGeldigheid', ...this.projection];
      const projection = Object.fromEntries(fields.map((f) => [f, 1]));
      const found = this.target.store.raw.find(live({ ...this.where, [this.field]: { $in: [...batch.keys()] } }), { projection });
      // Sorted by the key first: the `$in` then reads one index range per key, already in order.
      const docs = await (this.sort ? found.sort({ [this.field]: 1, ...(this.sort as Record<string, 1 | -1>) }) : found).toArray();
      const grouped = groupBy(docs, (d) => String(d[this.field]));
      for (const [key, waiters] of batch) for (const w of waiters) w.resolve(grouped.get(key) ?? []);
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }
}
