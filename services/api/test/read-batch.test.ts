import { randomUUID } from 'node:crypto';
import type { Collection, CommandStartedEvent, Document } from 'mongodb';
import { connectMongo, inTenant, loadConfig, type Mongo } from '@zgw/shared';
import { ReadBatcher } from '../src/common/storage/read-batch';

/** Reads of concurrent requests share round trips, and each caller gets the documents of its own read. */
let mongo: Mongo;
const id = randomUUID().slice(0, 8);
const commands: CommandStartedEvent[] = [];
const [T1, T2] = ['000000000', '123456782'];

beforeAll(async () => {
  const config = loadConfig({ ...process.env, MONGODB_DB: `zgw_test_readbatch_${id}` });
  mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  mongo.client.on('commandStarted', (e) => commands.push(e));
  const coll = mongo.db.collection<Document & { _id: string }>('zaken');
  await inTenant(T1, () =>
    coll.insertMany([
      { _id: 'a', bronorganisatie: '111', identificatie: 'D-1' },
      { _id: 'b', bronorganisatie: '111', identificatie: 'D-2' },
      { _id: 'c', bronorganisatie: '222', identificatie: 'D-1' },
      { _id: 'd', bronorganisatie: '111', identificatie: 'D-2', _tombstone: new Date() },
      { _id: 'e', bronorganisatie: '111', identificatie: 'D-3' },
      { _id: 'f', bronorganisatie: '111', identificatie: 'D-3' },
    ]),
  );
  await inTenant(T2, () => coll.insertOne({ _id: 'g', bronorganisatie: '111', identificatie: 'D-1' }));
});
afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.client.close();
});

const findsOf = (coll: string) => commands.filter((c) => c.commandName === 'find' && c.command.find === coll);
const ids = (docs: Document[]) => docs.map((d) => String(d._id)).sort();

it('sends reads of one shape that arrive while a round trip is under way as one $in query, each caller its own documents', async () => {
  const r = new ReadBatcher(mongo.db.collection('zaken'), { _tombstone: { $exists: false } });
  commands.length = 0;
  const asked = ['D-1', 'D-2', 'D-3', 'D-1', 'D-9', 'D-2'];
  const found = await inTenant(T1, () => Promise.all(asked.map((v) => r.by('identificatie', v, { bronorganisatie: '111' }))));
  // each caller: the live documents of its value within bron 111 (two for D-3, none for D-9)
  expect(found.map(ids)).toEqual([['a'], ['b'], ['e', 'f'], ['a'], [], ['b']]);
  // the first read goes alone (by equality); the others wait for it and go together, each value asked once
  const sent = findsOf('zaken').map((c) => c.command.filter);
  expect(sent).toEqual([
    { bronorganisatie: '111', identificatie: 'D-1', _tombstone: { $exists: false }, _tenant: T1 },
    { bronorganisatie: '111', identificatie: { $in: ['D-2', 'D-3', 'D-1', 'D-9'] }, _tombstone: { $exists: false }, _tenant: T1 },
  ]);
});

it('keeps reads of other fixed values, other fields and other tenants in queries of their own', async () => {
  const r = new ReadBatcher(mongo.db.collection('zaken'), {});
  commands.length = 0;
  const first = inTenant(T1, () => r.get('b')); // (under way while the rest queue)
  const [bron111, bron222, byId, otherTenant, notTheirs] = await Promise.all([
    inTenant(T1, () => r.by('identificatie', 'D-1', { bronorganisatie: '111' })),
    inTenant(T1, () => r.by('identificatie', 'D-1', { bronorganisatie: '222' })),
    inTenant(T1, () => r.get('e')),
    inTenant(T2, () => r.by('identificatie', 'D-1', { bronorganisatie: '111' })),
    inTenant(T2, () => r.get('a')),
  ]);
  expect((await first)?._id).toBe('b');
  expect([ids(bron111), ids(bron222), byId?._id, ids(otherTenant), notTheirs]).toEqual([['a'], ['c'], 'e', ['g'], null]);
  const filters = findsOf('zaken').map((c) => JSON.stringify(c.command.filter));
  const expected = [
    { _id: 'b', _tenant: T1 },
    { bronorganisatie: '111', identificatie: 'D-1', _tenant: T1 },
    { bronorganisatie: '222', identificatie: 'D-1', _tenant: T1 },
    { _id: 'e', _tenant: T1 },
    { bronorganisatie: '111', identificatie: 'D-1', _tenant: T2 },
    { _id: 'a', _tenant: T2 },
  ];
  expect(filters.sort()).toEqual(expected.map((f) => JSON.stringify(f)).sort());
});

it('fails every waiting read of a round trip that fails, and reads again afterwards', async () => {
  let down = true;
  const real = mongo.db.collection<Document & { _id: string }>('zaken');
  // (the store refusing a round trip: a collection whose finds fail while `down`)
  const coll = {
    findOne: real.findOne.bind(real),
    find: (filter: Document) => (down ? { toArray: () => Promise.reject(new Error('store gone')) } : real.find(filter)),
  } as unknown as Collection<Document & { _id: string }>;
  const r = new ReadBatcher(coll, {});
  const results = await inTenant(T1, () => Promise.allSettled([r.get('a'), r.by('identificatie', 'D-2', { bronorganisatie: '111' }), r.get('b')]));
  expect(results.map((x) => x.status)).toEqual(['rejected', 'rejected', 'rejected']);
  down = false;
  expect(await inTenant(T1, () => Promise.all([r.get('a'), r.get('b')].map((p) => p.then((d) => d?._id))))).toEqual(['a', 'b']);
});

it('batches reads by a field of an embedded document, each caller the documents whose field holds its value', async () => {
  const coll = mongo.db.collection<Document & { _id: string }>('rollen');
  await inTenant(T1, () =>
    coll.insertMany([
      { _id: 'r1', betrokkeneType: 'natuurlijk_persoon', _pii: { inpBsn: 'h:1' } },
      { _id: 'r2', betrokkeneType: 'natuurlijk_persoon', _pii: { inpBsn: 'h:2' } },
      { _id: 'r3', betrokkeneType: 'natuurlijk_persoon', _pii: { inpBsn: 'h:2' } },
      { _id: 'r4', betrokkeneType: 'vestiging', _pii: { inpBsn: 'h:1' } },
    ]),
  );
  const r = new ReadBatcher(coll, {});
  commands.length = 0;
  const fixed = { betrokkeneType: 'natuurlijk_persoon' };
  const found = await inTenant(T1, () => Promise.all(['h:1', 'h:2', 'h:3', 'h:2'].map((h) => r.by('_pii.inpBsn', h, fixed))));
  expect(found.map(ids)).toEqual([['r1'], ['r2', 'r3'], [], ['r2', 'r3']]);
  expect(findsOf('rollen').map((c) => c.command.filter['_pii.inpBsn'])).toEqual(['h:1', { $in: ['h:2', 'h:3'] }]);
});

it('reads many by _id with the concurrent reads by _id (in one query after the one under way), alone in one query, and at platform level in one of its own', async () => {
  const r = new ReadBatcher(mongo.db.collection('zaken'), { _tombstone: { $exists: false } });
  commands.length = 0;
  const [one, many, more] = await inTenant(T1, () => Promise.all([r.get('a'), r.getMany(['b', 'c', 'd', 'x', 'b']), r.getMany(['e', 'c'])]));
  // the live documents there are, each once (`d` is a tombstone, `x` is not there)
  expect([one?._id, ids(many), ids(more)]).toEqual(['a', ['b', 'c'], ['c', 'e']]);
  expect(findsOf('zaken').map((c) => c.command.filter._id)).toEqual(['a', { $in: ['b', 'c', 'd', 'x', 'e'] }]);
  // alone: all of them in one query
  commands.length = 0;
  expect(ids(await inTenant(T1, () => r.getMany(['e', 'a', 'b'])))).toEqual(['a', 'b', 'e']);
  expect(findsOf('zaken').map((c) => c.command.filter._id)).toEqual([{ $in: ['e', 'a', 'b'] }]);
  commands.length = 0;
  expect(ids(await r.getMany(['a', 'g']))).toEqual(['a', 'g']);
  expect(findsOf('zaken').map((c) => c.command.filter)).toEqual([{ _id: { $in: ['a', 'g'] }, _tombstone: { $exists: false } }]);
});
