import type { Document, Filter, Sort } from 'mongodb';
import type { InvalidParam } from '../../common/errors';
import { groupBy } from '../../common/group';
import type { Resource } from '../../common/resource';
import { LIVE, type Stored } from '../../common/store';
import { isUrl, resolveLocal } from './context';
import type { Doc } from './schemas';

/**
 * The 1.3 history model: a type refers to another type of the same catalogus by its omschrijving (besluittypen,
 * informatieobjecttypen) or identificatie (zaaktypen), so a relation keeps pointing at whatever version is current.
 * Clients may still send URLs; those are turned into the omschrijving/identificatie of the object they point at.
 */
export interface NamedRelations {
  names: string[];
  /** The objects that were given by URL (for concept and catalogus checks). */
  byUrl: Stored<Doc>[];
  errors: InvalidParam[];
  /** True when a URL pointed into another catalogus. */
  foreignCatalogus: boolean;
}

export async function namesFromInput(
  target: Resource<Doc>,
  field: string,
  nameField: string,
  catalogus: string,
  values: readonly string[],
): Promise<NamedRelations> {
  const out: NamedRelations = { names: [], byUrl: [], errors: [], foreignCatalogus: false };
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

/**
 * The stored objects of `target` in `catalogus` whose `nameField` is one of `names`, newest version first;
 * with `datum`, only the versions valid on that day.
 */
export async function byNames(target: Resource<Doc>, nameField: string, catalogus: unknown, names: unknown, datum?: string): Promise<Stored<Doc>[]> {
  const list = Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string' && n !== '') : [];
  if (!list.length || typeof catalogus !== 'string') return [];
  // Every version is read, so they are put newest first here: the query then needs no index on the sort.
  const docs = (await target.store.coll.find({ catalogus, [nameField]: { $in: list }, ...LIVE } as never).toArray()) as Stored<Doc>[];
  return docs.sort(newestFirst).filter((d) => validOn(d, datum));
}

/** NEWEST_FIRST as MongoDB orders it: beginGeldigheid descending (null last), then _created descending. */
function newestFirst(a: Document, b: Document): number {
  const x = String(a.beginGeldigheid ?? '');
  const y = String(b.beginGeldigheid ?? '');
  return x !== y ? (x < y ? 1 : -1) : (b._created as Date).getTime() - (a._created as Date).getTime();
}

/** URLs of the objects matching a filter, without loading whole documents. */
export async function urlsWhere(target: Resource<Doc>, filter: Filter<Document>, sort: Sort = { _created: 1, _id: 1 }): Promise<string[]> {
  const docs = await target.store.coll.find({ ...filter, ...LIVE } as never, { projection: { _id: 1 } }).sort(sort).toArray();
  return docs.map((d) => target.url(String(d._id)));
}

/** For each name, the URL of its newest version (used where the standard shows one object per relation). */
export async function newestUrls(target: Resource<Doc>, nameField: string, catalogus: unknown, names: unknown, datum?: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const doc of await byNames(target, nameField, catalogus, names, datum)) {
    const key = String(doc[nameField]);
    if (!found.has(key)) found.set(key, target.url(doc._id));
  }
  return found;
}

/** All versions that carry one of the names, as URLs (a relation by omschrijving covers every version). */
export async function allUrls(target: Resource<Doc>, nameField: string, catalogus: unknown, names: unknown, datum?: string): Promise<string[]> {
  return (await byNames(target, nameField, catalogus, names, datum)).map((d) => target.url(d._id));
}

type Waiter<V> = { resolve: (v: V) => void; reject: (e: unknown) => void };

/**
 * Loads, per key, the objects of `target` whose `field` equals that key, batching the keys asked for in the same
 * tick into one `$in` query: a list page renders 100 objects at once, and each asks for its parts.
 */
export class GroupLoader {
  private queue = new Map<string, Waiter<Document[]>[]>();
  private scheduled = false;

  constructor(
    private readonly target: Resource<Doc>,
    private readonly field: string,
    private readonly projection: string[] = [],
    private readonly sort: Sort = { _created: 1, _id: 1 },
  ) {}

  load(key: string): Promise<Document[]> {
    return new Promise((resolve, reject) => {
      const waiting = this.queue.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.queue.set(key, [{ resolve, reject }]);
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
    const batch = this.queue;
    this.queue = new Map();
    this.scheduled = false;
    try {
      const fields = ['_id', this.field, 'beginGeldigheid', 'eindeGeldigheid', ...this.projection];
      const projection = Object.fromEntries(fields.map((f) => [f, 1]));
      // Sorted by the key first: the `$in` then reads one index range per key, already in order.
      const docs = await this.target.store.coll
        .find({ [this.field]: { $in: [...batch.keys()] }, ...LIVE } as never, { projection })
        .sort({ [this.field]: 1, ...(this.sort as Record<string, 1 | -1>) })
        .toArray();
      const grouped = groupBy(docs, (d) => String(d[this.field]));
      for (const [key, waiters] of batch) for (const w of waiters) w.resolve(grouped.get(key) ?? []);
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }
}
