import type { Collection, Document, Filter } from 'mongodb';
import { currentTenant, inTenant } from '@zgw/shared';

type Keyed = Document & { _id: string };

interface Waiting {
  resolve: (doc: Keyed | null) => void;
  reject: (err: unknown) => void;
}

/**
 * Sends the reads by `_id` that concurrent requests make of one collection together, as WriteBatcher does for
 * writes: while one round trip is under way the next reads queue, and go in the next round trip as one `$in` query
 * (one per tenant: each tenant's reads are its own query). A lone read goes at once. Each caller gets its own
 * document, or null.
 */
export class ReadBatcher {
  /** Waiting reads by tenant, then by `_id`. */
  private queue = new Map<string, Map<string, Waiting[]>>();
  private busy = false;

  /** `coll` restricts its queries to the current tenant; `filter` is added to every read (e.g. live documents only). */
  constructor(
    private readonly coll: Collection<Keyed>,
    private readonly filter: Filter<Keyed>,
  ) {}

  get(id: string): Promise<Keyed | null> {
    const tenant = currentTenant();
    // (a read at platform level goes alone: the query log names where it comes from, see PLATFORM_QUERY_SITES)
    if (tenant === undefined) return this.coll.findOne({ _id: id, ...this.filter } as Filter<Keyed>);
    return new Promise((resolve, reject) => {
      let ids = this.queue.get(tenant);
      if (!ids) this.queue.set(tenant, (ids = new Map()));
      const waiting = ids.get(id);
      if (waiting) waiting.push({ resolve, reject });
      else ids.set(id, [{ resolve, reject }]);
      if (!this.busy) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.busy = true;
    try {
      while (this.queue.size) {
        const reads = [...this.queue];
        this.queue.clear();
        await Promise.all(reads.map(([tenant, ids]) => inTenant(tenant, () => this.send(ids))));
      }
    } finally {
      this.busy = false;
    }
  }

  private async send(ids: Map<string, Waiting[]>): Promise<void> {
    try {
      const wanted = [...ids.keys()];
      const docs = await this.coll.find({ _id: wanted.length === 1 ? wanted[0]! : { $in: wanted }, ...this.filter } as Filter<Keyed>).toArray();
      const byId = new Map(docs.map((d) => [d._id, d]));
      for (const [id, waiting] of ids) for (const w of waiting) w.resolve(byId.get(id) ?? null);
    } catch (err) {
      for (const waiting of ids.values()) for (const w of waiting) w.reject(err);
    }
  }
}
