import type { Db } from 'mongodb';
import { Identificaties } from '../src/components/zaken/index';

/**
 * A counter collection whose findOneAndUpdate reads, yields, then writes: not atomic under concurrency, like the
 * stand-in storage. Every call is recorded.
 */
function counterDb(fail?: () => boolean, chosen: string[] = []): { db: Db; calls: { key: string; inc: number }[] } {
  const values = new Map<string, number>();
  const calls: { key: string; inc: number }[] = [];
  const collection = {
    async findOneAndUpdate(filter: { _id: string }, update: { $inc: { n: number } }) {
      calls.push({ key: filter._id, inc: update.$inc.n });
      const before = values.get(filter._id) ?? 0;
      await new Promise((r) => setImmediate(r));
      if (fail?.()) throw new Error('storage unavailable');
      values.set(filter._id, before + update.$inc.n);
      return { _id: filter._id, n: before + update.$inc.n };
    },
    /** The zaken collection: holds the identificaties in `chosen` (numbers clients chose themselves). */
    async findOne(filter: { identificatie: string }) {
      return chosen.includes(filter.identificatie) ? { _id: filter.identificatie } : null;
    },
  };
  return { db: { collection: () => collection } as unknown as Db, calls };
}

describe('zaak identificaties', () => {
  it('gives concurrent creates distinct numbers in order, reserved together with one counter update per round', async () => {
    const { db, calls } = counterDb();
    const ids = new Identificaties(db);
    const got = await Promise.all(Array.from({ length: 50 }, () => ids.next('002220647', '2024-03-01')));
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => `ZAAK-2024-${String(i + 1).padStart(10, '0')}`));
    expect(calls.length).toBeLessThan(50);
    expect(calls.reduce((s, c) => s + c.inc, 0)).toBe(50);
    expect(await ids.next('002220647', '2024-12-31')).toBe('ZAAK-2024-0000000051');
  });

  it('counts per bronorganisatie and year', async () => {
    const { db } = counterDb();
    const ids = new Identificaties(db);
    const [a, b, c] = await Promise.all([
      ids.next('111111110', '2024-01-01'),
      ids.next('222222220', '2024-01-01'),
      ids.next('111111110', '2025-01-01'),
    ]);
    expect([a, b, c]).toEqual(['ZAAK-2024-0000000001', 'ZAAK-2024-0000000001', 'ZAAK-2025-0000000001']);
  });

  it('fails the creates waiting on a failed counter update, and numbers again afterwards', async () => {
    let down = true;
    const { db } = counterDb(() => down);
    const ids = new Identificaties(db);
    const failed = await Promise.allSettled([ids.next('002220647', '2024-03-01'), ids.next('002220647', '2024-03-01')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    down = false;
    expect(await ids.next('002220647', '2024-03-01')).toBe('ZAAK-2024-0000000001');
  });

  it('skips a number a client chose itself, so a generated identificatie never refuses a create', async () => {
    const { db } = counterDb(undefined, ['ZAAK-2024-0000000002', 'ZAAK-2024-0000000003']);
    const ids = new Identificaties(db);
    const got = [await ids.next('002220647', '2024-03-01'), await ids.next('002220647', '2024-03-01'), await ids.next('002220647', '2024-03-01')];
    expect(got).toEqual(['ZAAK-2024-0000000001', 'ZAAK-2024-0000000004', 'ZAAK-2024-0000000005']);
  });
});
