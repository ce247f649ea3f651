import { randomUUID } from 'node:crypto';
import { connectMongo, createKafka, createLogger, DEFAULT_TENANT, inTenant, loadConfig, type Mongo } from '@zgw/shared';
import { OutboxRelay } from '../src/common/storage/relay';
import { OUTBOX_POINTERS, Store, newEvent } from '../src/common/storage/store';

/** The relay finds waiting events through the outbox pointers, and once per process by scanning. */
let mongo: Mongo;
let relay: OutboxRelay;
let store: Store<{ naam: string }>;
const id = randomUUID().slice(0, 8);

beforeAll(async () => {
  const config = loadConfig({ ...process.env, MONGODB_DB: `zgw_test_outbox_${id}` });
  mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  store = new Store(mongo.db, 'dingen', () => undefined);
  await store.ensureIndexes(); // as every component does (the query-index check of `npm test` reads them)
  // Not started: each test drains by hand, so nothing runs in between.
  // `foreign-`: the events here are stand-ins, not the platform's messages (the AsyncAPI contract check leaves them out)
  relay = new OutboxRelay(
    createKafka(config.KAFKA_BROKERS, `test-outbox-${id}`),
    `foreign-outbox-${id}-`,
    60_000,
    createLogger('test', 'silent'),
    'urn:test',
  );
  relay.register(store as never);
});
afterAll(async () => {
  await relay.stop();
  await mongo.db.dropDatabase();
  await mongo.client.close();
});

const event = () => newEvent('autorisaties', 'k', { naam: 'x' });
/** A test whose writes are a tenant's, as a request's are (the relay itself works at platform level). */
const asTenant = (fn: () => Promise<void>) => () => inTenant(DEFAULT_TENANT, fn);
const pointers = () => mongo.db.collection(OUTBOX_POINTERS).find({}).toArray();

it('publishes what an earlier process left without pointers, by the scan at start', async () => {
  await mongo.db.collection('dingen').insertOne({ _id: 'legacy' as never, naam: 'oud', _created: new Date(), _outbox: [event()], _pending: true });
  expect(await relay.drain()).toBe(1);
  expect(await mongo.db.collection('dingen').countDocuments({ _pending: true })).toBe(0);
});

it(
  "writes a pointer with the document's events and removes it once the events are out",
  asTenant(async () => {
    const uuid = randomUUID();
    const stored = await store.insert(uuid, { naam: 'a' }, [event()]);
    await store.replace(stored, { naam: 'b' }, [event()]);
    expect((await pointers()).map((p) => p._id)).toEqual([`dingen/${uuid}`]);
    expect(await relay.drain()).toBe(2);
    expect(await pointers()).toEqual([]);
    expect(await store.get(uuid)).toMatchObject({ naam: 'b' });
    expect((await store.get(uuid))?._outbox ?? []).toEqual([]);
    expect((await store.get(uuid))?._pending).toBeUndefined();
    // A write without events leaves no pointer.
    await store.replace((await store.get(uuid))!, { naam: 'c' }, []);
    expect(await pointers()).toEqual([]);
  }),
);

it(
  'publishes events that together weigh more than Kafka takes in one request, and an event of over 1 MB',
  asTenant(async () => {
    const weighing = (kb: number) => newEvent('autorisaties', 'k', { naam: 'x'.repeat(kb * 1024) });
    const uuids = Array.from({ length: 150 }, () => randomUUID());
    await Promise.all(uuids.map((uuid) => store.insert(uuid, { naam: 'groot' }, [weighing(10)]))); // 1.5 MB together
    const huge = randomUUID();
    await store.insert(huge, { naam: 'zeer groot' }, [weighing(2048)]); // as an update's trail of a 1 MB object
    expect(await relay.drain()).toBe(151);
    expect(await pointers()).toEqual([]);
    expect(await mongo.db.collection('dingen').countDocuments({ _id: { $in: [...uuids, huge] as never[] }, _pending: true })).toBe(0);
  }),
);

it('drops a pointer whose document holds no events', async () => {
  await mongo.db
    .collection(OUTBOX_POINTERS)
    .insertOne({ _id: 'dingen/nothing' as never, collection: 'dingen', doc: 'nothing', nonce: 'n', at: new Date() });
  expect(await relay.drain()).toBe(0);
  expect(await pointers()).toEqual([]);
});

it(
  'leaves no event behind when writes land while the relay drains (a pointer is only there once its events are)',
  asTenant(async () => {
    const uuids = Array.from({ length: 20 }, () => randomUUID());
    let draining = true;
    let published = 0;
    const drains = (async () => {
      while (draining) published += await relay.drain();
    })();
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        uuids.map(async (uuid) => {
          const current = round === 0 ? undefined : await store.get(uuid);
          if (current) await store.replace(current, { naam: `r${round}` }, [event()]);
          else await store.insert(uuid, { naam: 'r0' }, [event()]);
        }),
      );
    }
    draining = false;
    await drains;
    published += await relay.drain();
    expect(published).toBe(uuids.length * 5);
    const left = await mongo.db.collection('dingen').countDocuments({ _id: { $in: uuids as never[] }, _pending: true });
    expect(left).toBe(0);
  }),
);

it(
  'publishes a deletion and then drops the tombstone',
  asTenant(async () => {
    const uuid = randomUUID();
    const stored = await store.insert(uuid, { naam: 'weg' }, []);
    await store.remove(stored, [event()]);
    expect(await relay.drain()).toBe(1);
    expect(await mongo.db.collection('dingen').countDocuments({ _id: uuid as never })).toBe(0);
    expect(await pointers()).toEqual([]);
  }),
);
