import type { Collection, Document, Filter } from 'mongodb';
import { currentTenant, inTenant, valueAtPath } from '@zgw/shared';

type Keyed = Document & { _id: string };

interface Waiting {
  resolve: (docs: Keyed[]) => void;
  reject: (err: unknown) => void;
}

/** The reads of one shape waiting for a round trip: `fixed` fields, and the values asked of one other field. */
interface Shape {
  fixed: Filter<Keyed>;
  field: string;
  values: Map<string, Waiting[]>;
}

/**
 * Sends the reads that concurrent requests make of one collection together, as WriteBatcher does for writes: while
 * one round trip is under way the next reads queue, and go in the next round trip as one `$in` query per shape (the
 * same fixed fields and the same asked field: by `_id`, or e.g. an identificatie within a bronorganisatie), one per
 * tenant (each tenant's reads are its own query). A lone read goes at once. Each caller gets its own documents.
 */
export class ReadBatcher {
  /** Waiting reads by tenant, then by shape. */
  private queue = new Map<string, Map<string, Shape>>();
  private busy = false;

  /** `coll` restricts its queries to the current tenant; `filter` is added to every read (e.g. live documents only). */
  constructor(
    private readonly coll: Collection<Keyed>,
    private readonly filter: Filter<Keyed>,
  ) {}

  /** The document with this `_id`, or null. */
  get(id: string): Promise<Keyed | null> {
    // (a read at platform level goes alone: the query log names where it comes from, see PLATFORM_QUERY_SITES)
    if (currentTenant() === undefined) return this.coll.findOne({ _id: id, ...this.filter } as Filter<Keyed>);
    return this.by('_id', id).then((docs) => docs[0] ?? null);
  }

  /**
   * The documents with these `_id`s that there are, in no particular order: alone, one query for all of them; else
   * part of the next round trip.
   */
  async getMany(ids: string[]): Promise<Keyed[]> {
    const tenant = currentTenant();
    if (tenant === undefined) return this.coll.find(this.query({}, '_id', ids)).toArray();
    const reads = [...new Set(ids)].map((id) => this.wait(tenant, '_id', id, {}));
    if (!this.busy) void this.flush();
    return (await Promise.all(reads)).flat();
  }

  /**
   * The documents whose `field` (a dotted path reaches into an embedded document) is `value` and that match `fixed`
   * (fields with a value each, no operators).
   */
  by(field: string, value: string, fixed: Filter<Keyed> = {}): Promise<Keyed[]> {
    const tenant = currentTenant();
    if (tenant === undefined) return this.coll.find(this.query(fixed, field, [value])).toArray();
    const read = this.wait(tenant, field, value, fixed);
    if (!this.busy) void this.flush();
    return read;
  }

  /** A read put in the queue, for the next round trip. */
  private wait(tenant: string, field: string, value: string, fixed: Filter<Keyed>): Promise<Keyed[]> {
    return new Promise((resolve, reject) => {
      let shapes = this.queue.get(tenant);
      if (!shapes) this.queue.set(tenant, (shapes = new Map()));
      const key = `${field}\u0000${JSON.stringify(fixed)}`;
      let shape = shapes.get(key);
      if (!shape) shapes.set(key, (shape = { fixed, field, values: new Map() }));
      const waiting = shape.values.get(value);
      if (waiting) waiting.push({ resolve, reject });
      else shape.values.set(value, [{ resolve, reject }]);
    });
  }

  private query(fixed: Filter<Keyed>, field: string, values: string[]): Filter<Keyed> {
    return { ...fixed, [field]: values.length === 1 ? values[0]! : { $in: values }, ...this.filter } as Filter<Keyed>;
  }

  private async flush(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.size) {
        const reads = [...this.queue];
        this.queue.clear();
        await Promise.all(reads.map(([tenant, shapes]) => inTenant(tenant, () => Promise.all([...shapes.values()].map((s) => this.send(s))))));
      }
    } finally {
      this.busy = false;
    }
  }

  private async send({ fixed, field, values }: Shape): Promise<void> {
    try {
      const docs = await this.coll.find(this.query(fixed, field, [...values.keys()])).toArray();
      const byValue = new Map<string, Keyed[]>();
      for (const doc of docs) {
        const value = String(valueAtPath(doc, field));
        const list = byValue.get(value);
        if (list) list.push(doc);
        else byValue.set(value, [doc]);
      }
      for (const [value, waiting] of values) for (const w of waiting) w.resolve(byValue.get(value) ?? []);
    } catch (err) {
      for (const waiting of values.values()) for (const w of waiting) w.reject(err);
    }
  }
}
