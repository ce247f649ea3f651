import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent } from 'mongodb';
import { connectMongo, loadConfig, type Mongo } from '@zgw/shared';
import { batcherOf, incrementsAdd, laterWins } from '../src/common/storage/write-batch';

/** Small writes of concurrent requests share round trips, and each caller learns the fate of its own write. */
let mongo: Mongo;
const id = randomUUID().slice(0, 8);
const commands: CommandStartedEvent[] = [];

beforeAll(async () => {
  const config = loadConfig({ ...process.env, MONGODB_DB: `zgw_test_batch_${id}` });
  mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  mongo.client.on('commandStarted', (e) => commands.push(e));
});
afterAll(async () => {
  await mongo.db.dropDatabase();
  await mongo.client.close();
});

const updatesTo = (coll: string) => commands.filter((c) => c.commandName === 'update' && c.command.update === coll);
const inc = (_id: string, n: number) => ({ updateOne: { filter: { _id }, update: { $inc: { n }, $setOnInsert: { values: [_id] } }, upsert: true } });

it('sends writes that arrive while a round trip is under way together, and adds up increments of one document', async () => {
  const b = batcherOf(mongo.db, 'tellers');
  commands.length = 0;
  // 50 concurrent increments of two documents, as 50 concurrent creates in two buckets.
  await Promise.all(Array.from({ length: 50 }, (_, i) => b.write(i % 2 ? 'even' : 'oneven', inc(i % 2 ? 'even' : 'oneven', 1), incrementsAdd)));
  const docs = await mongo.db.collection('tellers').find({}).sort({ _id: 1 }).toArray();
  expect(docs).toEqual([
    { _id: 'even', n: 25, values: ['even'] },
    { _id: 'oneven', n: 25, values: ['oneven'] },
  ]);
  // The first write goes alone; the other 49 wait for it and go in one round trip (as at most two operations).
  const sent = updatesTo('tellers');
  expect(sent.length).toBe(2);
  expect(sent.map((c) => c.command.updates.length)).toEqual([1, 2]);
});

it('sends a lone write at once, and the later of two writes of one document stands', async () => {
  const b = batcherOf(mongo.db, 'wijzers');
  const set = (nonce: string) => ({ updateOne: { filter: { _id: 'w' }, update: { $set: { nonce } }, upsert: true } });
  await b.write('w', set('eerste'), laterWins);
  expect((await mongo.db.collection('wijzers').findOne({ _id: 'w' as never }))?.nonce).toBe('eerste');
  await Promise.all(['a', 'b', 'c'].map((n) => b.write('w', set(n), laterWins)));
  expect((await mongo.db.collection('wijzers').findOne({ _id: 'w' as never }))?.nonce).toBe('c');
});

it('fails only the writer whose own write failed; the others of its round trip are stored', async () => {
  const b = batcherOf(mongo.db, 'gemengd');
  await mongo.db.collection('gemengd').insertOne({ _id: 'bestaat' as never });
  const insert = (_id: string) => ({ insertOne: { document: { _id } } });
  const first = b.write('voor', insert('voor'), laterWins);
  const results = await Promise.allSettled([first, b.write('dubbel', insert('bestaat'), laterWins), b.write('goed', insert('goed'), laterWins)]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  const ids = (await mongo.db.collection('gemengd').find({}).toArray()).map((d) => d._id).sort();
  expect(ids).toEqual(['bestaat', 'goed', 'voor']);
});

it('fails every waiting writer when the round trip itself fails, and goes on with the next ones', async () => {
  const b = batcherOf(mongo.db, 'fout');
  // An update with an operator MongoDB refuses fails the command as a whole.
  const bad = { updateOne: { filter: { _id: 'x' }, update: { $nietBestaand: { a: 1 } }, upsert: true } };
  await expect(b.write('x', bad as never, laterWins)).rejects.toThrow();
  await b.write('y', inc('y', 3), incrementsAdd);
  expect((await mongo.db.collection('fout').findOne({ _id: 'y' as never }))?.n).toBe(3);
});
