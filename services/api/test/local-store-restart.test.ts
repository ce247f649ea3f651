import {
  Binary,
  BSONRegExp,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  type Collection,
  type Document,
} from 'mongodb';
import { freePort, LocalStore, needsJava, storeHome } from './local-store.helpers';

// The store keeps documents as BSON and, at start, builds every index in one pass that decodes only the fields the
// indexes name, skipping the others by their BSON type (BsonFields.java). A restart must give the same indexes as the
// writes that built them: each query an index serves answers the same after the restart, and the same as a scan.
const N = 24_000; // above the size at which the build reads the slots in parallel ranges

/** A value of every BSON type, placed before the indexed fields so that reading them means skipping these. */
function everyType(i: number): Document {
  return {
    d: new Double(i + 0.5),
    s: `tekst ${i} é ✓`,
    o: { nested: { deeper: [i, 'x'] } },
    a: [1, 'two', { three: 3 }, [4]],
    bin: new Binary(Buffer.from([i % 256, 1, 2, 3]), 0),
    uuid: new Binary(Buffer.alloc(16, i % 256), 4),
    oid: new ObjectId(),
    b: i % 2 === 0,
    date: new Date(Date.UTC(2024, 0, 1) + i * 1000),
    nul: null,
    re: new BSONRegExp(`^a${i}`, 'i'),
    i32: new Int32(i),
    ts: new Timestamp({ t: i, i: 1 }),
    i64: Long.fromNumber(i * 1_000_000),
    dec: Decimal128.fromString(`${i}.25`),
    min: new MinKey(),
    max: new MaxKey(),
    code: new Code(`function () { return ${i}; }`),
  };
}

const QUERIES: { filter: Document; sort: Document }[] = [
  { filter: { k: { $gte: 'k' } }, sort: { k: 1 } },
  { filter: { g: 7 }, sort: { _id: 1 } },
  { filter: { 'sub.x': { $lt: 100 } }, sort: { 'sub.x': -1 } },
  { filter: { tags: 't3' }, sort: { _id: 1 } },
  { filter: { flag: { $exists: true }, k: { $gt: 'k1' } }, sort: { k: 1 } },
  { filter: { opt: { $gte: 0 } }, sort: { opt: 1 } },
  { filter: { g: { $in: [1, 2] }, when: { $gte: new Date(Date.UTC(2024, 0, 1, 3)) } }, sort: { when: 1 } },
];

describe('local store: indexes built at start from the stored BSON', () => {
  beforeAll(needsJava);
  let store: LocalStore;
  let docs: Collection;

  beforeAll(async () => {
    store = new LocalStore(storeHome(), await freePort());
    docs = await store.start();
  }, 120_000);

  afterAll(async () => {
    await store?.client?.close(true).catch(() => undefined);
    store?.cleanup();
  });

  async function answers(): Promise<{ index: Document[][]; scan: Document[][] }> {
    const index: Document[][] = [];
    const scan: Document[][] = [];
    for (const q of QUERIES) {
      index.push(await docs.find(q.filter).sort(q.sort).project({ _id: 1 }).toArray());
      scan.push(await docs.find(q.filter).sort(q.sort).project({ _id: 1 }).hint({ $natural: 1 }).toArray());
    }
    return { index, scan };
  }

  it('answers every indexed query the same after a restart, and as a scan does', async () => {
    await docs.createIndex({ k: 1 });
    await docs.createIndex({ g: 1, _id: 1 });
    await docs.createIndex({ 'sub.x': -1 });
    await docs.createIndex({ tags: 1, _id: 1 });
    await docs.createIndex({ k: 1, flag: 1 }, { partialFilterExpression: { flag: { $exists: true } }, name: 'partial' });
    await docs.createIndex({ opt: 1 }, { sparse: true });
    await docs.createIndex({ g: 1, when: 1 });
    for (let i = 0; i < N; i += 2000) {
      await docs.insertMany(
        Array.from({ length: 2000 }, (_, j) => {
          const n = i + j;
          return {
            _id: `d${n}` as never,
            ...everyType(n),
            k: `k${n}`,
            g: n % 10,
            sub: { x: n % 500, y: 'y' },
            tags: [`t${n % 7}`, `t${(n + 1) % 7}`],
            when: new Date(Date.UTC(2024, 0, 1) + n * 1000),
            ...(n % 3 === 0 ? { flag: true } : {}),
            ...(n % 5 === 0 ? { opt: n } : {}),
          };
        }),
      );
    }
    // deletes leave free slots, updates move keys: the stored state is not just the order of the inserts
    await docs.deleteMany({ g: 4 });
    await docs.updateMany({ g: 6 }, { $set: { k: 'k0-moved', 'sub.x': 1000 }, $unset: { flag: '' } });
    const before = await answers();
    const whole = await docs
      .find({ _id: { $in: ['d5', 'd6', 'd23999'] as never[] } })
      .sort({ _id: 1 })
      .toArray();
    expect(whole).toHaveLength(3);
    expect(before.index.map((r) => r.length).every((n) => n > 0)).toBe(true);
    expect(before.index).toEqual(before.scan);

    await store.stop('SIGTERM');
    docs = await store.start();
    expect(store.output).toMatch(/DurableBackend: \d+ databases and their indexes ready/);
    const after = await answers();
    expect(after.index).toEqual(before.index);
    expect(after.scan).toEqual(before.scan);
    // every query above was served from an index after the restart (none scanned but those asked to)
    const stats = await store.client!.db('t').command({ zgwQueryStats: 1 });
    expect(stats.indexed).toBeGreaterThanOrEqual(QUERIES.length);
    // and the documents read back whole: every type as it was stored
    expect(
      await docs
        .find({ _id: { $in: ['d5', 'd6', 'd23999'] as never[] } })
        .sort({ _id: 1 })
        .toArray(),
    ).toEqual(whole);
    expect(whole.find((d) => String(d._id) === 'd5')).toMatchObject({
      k: 'k5',
      g: 5,
      sub: { x: 5, y: 'y' },
      tags: ['t5', 't6'],
      opt: 5,
      s: 'tekst 5 é ✓',
    });
  }, 180_000);
});
