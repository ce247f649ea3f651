import { randomUUID } from 'node:crypto';
import { BSON, type Db, type Document } from 'mongodb';
import { connectMongo, DEFAULT_TENANT, inTenant, loadConfig, platformDb, type Mongo } from '@zgw/shared';
import { Store } from '../src/common/storage/store';

// A bounded read of stored documents (a page) is one `find` command whose reply hands over each document's bytes
// (Store.findStored): the tenant's documents only, in the order and window asked, also when the reply holds only part.
let mongo: Mongo;
let store: Store<{ n: number }>;
const id = randomUUID().slice(0, 8);
const OTHER = '123456782';

beforeAll(async () => {
  const config = loadConfig({ ...process.env, MONGODB_DB: `zgw_test_store_pages_${id}` });
  mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  store = new Store(mongo.db, 'dingen', () => undefined);
  await store.ensureIndexes([{ key: { n: 1 } }]);
  for (const [tenant, count] of [
    [DEFAULT_TENANT, 7],
    [OTHER, 3],
  ] as const)
    await inTenant(tenant, async () => {
      for (let n = 0; n < count; n++) await store.insert(randomUUID(), { n }, []);
    });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await mongo.db.dropDatabase();
  await mongo.client.close();
});

const decoded = (stored: Buffer[]) => stored.map((b) => BSON.deserialize(b));
const page = { sort: { n: 1 }, skip: 2, limit: 3 } as const;

it("reads a page as its documents' stored bytes: the tenant's only, in the order and window asked", async () => {
  const stored = await inTenant(DEFAULT_TENANT, () => store.findStored({}, page));
  expect(stored.every((b) => Buffer.isBuffer(b))).toBe(true);
  expect(decoded(stored).map((d) => [d.n, d._tenant])).toEqual([2, 3, 4].map((n) => [n, DEFAULT_TENANT]));
  expect(decoded(stored)).toEqual(await inTenant(DEFAULT_TENANT, () => store.find({}, page)));
  const other = await inTenant(OTHER, () => store.findStored({ n: { $gte: 1 } }, { sort: { n: -1 }, limit: 5 }));
  expect(decoded(other).map((d) => [d.n, d._tenant])).toEqual([2, 1].map((n) => [n, OTHER]));
});

it('reads the whole page through a cursor when the reply holds only part of it, and closes the cursor it leaves', async () => {
  const db = platformDb(mongo.db) as Db;
  const command = db.command.bind(db);
  const sent: Document[] = [];
  // (a reply cut short, as one that would pass 16 MB is: a first batch of one document and an open cursor)
  const spy = jest.spyOn(db, 'command').mockImplementation((cmd, options) => {
    sent.push(cmd);
    return command(cmd.find ? { ...cmd, batchSize: 1 } : cmd, options);
  });
  try {
    const stored = await inTenant(DEFAULT_TENANT, () => store.findStored({}, page));
    expect(decoded(stored).map((d) => d.n)).toEqual([2, 3, 4]);
  } finally {
    spy.mockRestore();
  }
  expect(sent.map((c) => Object.keys(c)[0])).toEqual(['find', 'killCursors']);
});

it('reads more small documents than one call takes as arguments (150,000): as objects and as stored bytes', async () => {
  const many = new Store<{ n: number }>(mongo.db, 'veel', () => undefined);
  await many.ensureIndexes();
  const N = 150_000;
  const now = new Date();
  await inTenant(DEFAULT_TENANT, async () => {
    for (let i = 0; i < N; i += 10_000)
      await many.raw.insertMany(Array.from({ length: Math.min(10_000, N - i) }, (_, j) => ({ _id: `d${i + j}`, _created: now, n: i + j })));
  });
  const all = await inTenant(DEFAULT_TENANT, () => many.find({}, { projection: { _id: 1 } }));
  expect(all.length).toBe(N);
  expect(new Set(all.map((d) => d._id)).size).toBe(N);
  const stored = await inTenant(DEFAULT_TENANT, () => many.findStored({}));
  expect(stored.length).toBe(N);
});
