import { currentTenant } from '@zgw/shared';
import type { Db } from 'mongodb';

/**
 * Identificaties unique per bronorganisatie: `<PREFIX>-<year>-<number>` (ZAAK-2024-0000000001, DOCUMENT-...), one
 * counter per bronorganisatie and year. Creates that need a number from the same counter at the same time share one
 * counter update: the numbers are reserved together with one `$inc` and handed out in order. One round trip serves
 * many concurrent creates, and no two of them ever read the same counter value, also on stores whose findAndModify
 * is not atomic under concurrency. A number a client chose itself (the standard lets it) is skipped when the counter
 * reaches it, when the generator knows where the identificaties are kept (`kept`): a generated identificatie never
 * refuses a create.
 */
export class GenummerdeIdentificaties {
  private readonly queues = new Map<string, { resolve(n: number): void; reject(err: unknown): void }[]>();

  constructor(
    private readonly db: Db,
    private readonly collection: string,
    private readonly prefix: string,
    private readonly kept?: { collection: string; organisatie: string },
  ) {}

  async next(bronorganisatie: string, datum: string): Promise<string> {
    const year = datum.slice(0, 4);
    for (;;) {
      // a series per tenant: two organisations may share a bronorganisatie value, never a counter
      const n = await this.reserve(`${currentTenant() ?? ''}/${bronorganisatie}/${year}`);
      const identificatie = `${this.prefix}-${year}-${String(n).padStart(10, '0')}`;
      if (!(await this.taken(bronorganisatie, identificatie))) return identificatie;
    }
  }

  /** Whether a resource already holds this identificatie (one read of the unique index on organisation and number). */
  private async taken(organisatie: string, identificatie: string): Promise<boolean> {
    if (!this.kept) return false;
    const found = await this.db
      .collection(this.kept.collection)
      .findOne({ [this.kept.organisatie]: organisatie, identificatie }, { projection: { _id: 1 } });
    return found !== null;
  }

  private reserve(key: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) return void queue.push({ resolve, reject });
      this.queues.set(key, [{ resolve, reject }]);
      void this.drain(key);
    });
  }

  /** Reserves numbers for everyone waiting on `key`, one update per round, until nobody waits. */
  private async drain(key: string): Promise<void> {
    const counters = this.db.collection<{ _id: string; n: number }>(this.collection);
    for (let waiting = this.queues.get(key)!; waiting.length; waiting = this.queues.get(key)!) {
      const batch = waiting.splice(0);
      try {
        const counter = await counters.findOneAndUpdate({ _id: key }, { $inc: { n: batch.length } }, { upsert: true, returnDocument: 'after' });
        const first = counter!.n - batch.length + 1;
        batch.forEach((w, i) => w.resolve(first + i));
      } catch (err) {
        batch.forEach((w) => w.reject(err));
      }
    }
    this.queues.delete(key);
  }
}
