import { closeSync, openSync, readFileSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Collection, Document } from 'mongodb';
import { freePort, LocalStore, needsJava, storeHome } from './local-store.helpers';

// The local MongoDB stand-in that `npm start` keeps a user's data in (local-store) must keep every
// write it acknowledged: through a bulk load with scans running, a kill -9 during writes, a clean stop after a large
// load (and the journal folded into a snapshot at the next start), and a crash in the middle of a journal record.
// Runs its own engine on a free port with its own folder, wherever Java is there to run it.
const LOADED = 200_000;
const PAD = 'x'.repeat(400);

describe('local store: the MongoDB stand-in loses nothing it acknowledged', () => {
  beforeAll(needsJava);
  let store: LocalStore;
  /** The documents of these tests have string ids. */
  let docs: Collection<{ _id: string } & Document>;
  /** Every document the store acknowledged, with the value it must have (undefined: deleted). */
  const expected = new Map<string, number | undefined>();
  /** Documents whose write was on the way when the engine was killed: either state is right. */
  const inFlight = new Set<string>();

  beforeAll(async () => {
    store = new LocalStore(storeHome(), await freePort());
    docs = await store.start();
    await docs.createIndex({ code: 1 }, { unique: true });
    // secondary indexes, rebuilt from the documents at every start (see the kill -9 test)
    await docs.createIndex({ n: 1, code: -1 });
    await docs.createIndex({ group: 1, _id: 1 }, { sparse: true });
  }, 120_000);

  afterAll(async () => {
    await store?.client?.close(true).catch(() => undefined);
    store?.cleanup();
  });

  it('answers full scans and writes at the same time right after a bulk load', async () => {
    for (let i = 0; i < LOADED; i += 2000) {
      const batch = Array.from({ length: 2000 }, (_, j) => ({ _id: `b${i + j}`, code: i + j, group: (i + j) % 10, n: 0, pad: PAD }));
      await docs.insertMany(batch);
      for (const d of batch) expected.set(d._id, 0);
    }
    const scans = Array.from({ length: 4 }, (_, s) =>
      s % 2
        ? docs.countDocuments({ group: 3 })
        : docs
            .find({ group: 7 }, { projection: { _id: 1 } })
            .toArray()
            .then((r) => r.length),
    );
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; i < 250; i++) {
        const _id = `w${w}-${i}`;
        await docs.insertOne({ _id: _id as never, code: -1 - (w * 250 + i), group: 99, n: i });
        expected.set(_id, i);
        // documents of group 5 get a new n: the scans above count groups 3 and 7, which stay as they are
        const target = `b${(w * 250 + i) * 10 + 5}`;
        await docs.updateOne({ _id: target as never }, { $set: { n: 1 } });
        expected.set(target, 1);
      }
    });
    const [counts] = await Promise.all([Promise.all(scans), Promise.all(writers)]);
    expect(counts).toEqual([LOADED / 10, LOADED / 10, LOADED / 10, LOADED / 10]);
    expect(await docs.countDocuments({})).toBe(LOADED + 2000);
    expect(await docs.countDocuments({ group: 5, n: 1 })).toBe(2000);
  }, 300_000);

  it('answers a lookup by _id or a unique key with more conditions (served from the index) by every condition', async () => {
    const live = { _tombstone: { $exists: false } };
    expect((await docs.findOne({ _id: 'b42' as never, ...live }))?.code).toBe(42);
    expect(await docs.findOne({ _id: 'b42' as never, group: 3 })).toBeNull();
    expect(await docs.findOne({ _id: 'nothing' as never, ...live })).toBeNull();
    const some = await docs.find({ _id: { $in: ['b1', 'b2', 'b13', 'nothing'] } as never, group: { $in: [1, 3] } }).toArray();
    expect(some.map((d) => d._id).sort()).toEqual(['b1', 'b13']);
    expect((await docs.findOne({ code: 77, group: 7 }))?._id).toBe('b77');
    expect(await docs.findOne({ code: 77, group: 8 })).toBeNull();
    // updates and deletes select their documents the same way
    expect((await docs.updateOne({ _id: 'b44' as never, group: 5 }, { $set: { n: 9 } })).matchedCount).toBe(0);
    expect((await docs.updateMany({ _id: { $in: ['b44', 'b45'] } as never, group: 5 }, { $set: { n: 1 } })).matchedCount).toBe(1);
    expected.set('b45', 1);
    expect((await docs.deleteMany({ _id: { $in: ['b46', 'b47'] } as never, group: 9 })).deletedCount).toBe(0);
  });

  it('answers $in on the fields of a compound unique index (one lookup per combination) by every condition', async () => {
    const parts = store.client!.db('t').collection('delen');
    await parts.createIndex({ file: 1, n: 1 }, { unique: true });
    await parts.insertMany(Array.from({ length: 60 }, (_, i) => ({ file: `f${i % 3}`, n: Math.floor(i / 3), size: i })));
    const some = await parts.find({ file: 'f1', n: { $in: [0, 2, 5, 99] } }).toArray();
    expect(some.map((d) => [d.file, d.n]).sort()).toEqual([
      ['f1', 0],
      ['f1', 2],
      ['f1', 5],
    ]);
    const both = await parts.find({ file: { $in: ['f0', 'f2'] }, n: { $in: [1, 3] }, size: { $lt: 10 } }).toArray();
    expect(both.map((d) => d.size).sort((a, b) => a - b)).toEqual([3, 5, 9]);
    // more combinations than are looked up one by one: the same answer by a scan
    const many = await parts.find({ file: 'f2', n: { $in: Array.from({ length: 2000 }, (_, i) => i) } }).toArray();
    expect(many).toHaveLength(20);
  });

  it('keeps documents as written while it shares their repeated strings (names, values, nested, in lists)', async () => {
    const shared = store.client!.db('t').collection<{ _id: string; nested: { taal: string; list: unknown[] } }>('gedeeld');
    const doc = (i: number) => ({
      _id: `g${i}`,
      type: 'https://example.org/catalogi/api/v1/informatieobjecttypen/1',
      taal: 'nld',
      nested: { taal: 'nld', list: ['nld', i, { taal: 'eng' }] },
    });
    await shared.insertMany([doc(1), doc(2)] as never[]);
    await shared.updateOne({ _id: 'g2' as never }, { $set: { 'nested.taal': 'eng', extra: ['nld', 'fry'] }, $push: { 'nested.list': 'nld' } });
    expect(await shared.find({}).sort({ _id: 1 }).toArray()).toEqual([
      doc(1),
      { ...doc(2), nested: { taal: 'eng', list: ['nld', 2, { taal: 'eng' }, 'nld'] }, extra: ['nld', 'fry'] },
    ]);
    expect(await shared.countDocuments({ 'nested.taal': 'nld' })).toBe(1);
  });

  it('keeps every acknowledged insert, update and delete through a kill -9 in the middle of writing', async () => {
    let acked = 0;
    let killed = false;
    const worker = async (w: number) => {
      const mine: string[] = [];
      for (let i = 0; !killed; i++) {
        const op = i % 5;
        const _id = op === 3 && mine.length ? mine[i % mine.length]! : op === 4 && mine.length ? mine.shift()! : `k${w}-${i}`;
        inFlight.add(_id);
        try {
          if (_id === `k${w}-${i}`) {
            await docs.insertOne({ _id: _id as never, code: 1_000_000 + w * 1_000_000 + i, n: i });
            expected.set(_id, i);
            mine.push(_id);
          } else if (op === 3) {
            await docs.updateOne({ _id: _id as never }, { $set: { n: -i } });
            expected.set(_id, -i);
          } else {
            await docs.deleteOne({ _id: _id as never });
            expected.set(_id, undefined);
          }
          inFlight.delete(_id);
          acked++;
        } catch {
          return; // the engine is gone: this write was not acknowledged, it may or may not have been kept
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, w) => worker(w));
    while (acked < 3000) await new Promise((r) => setTimeout(r, 20));
    killed = true;
    const out = await store.stop('SIGKILL');
    await Promise.all(workers);
    expect(out).not.toContain('MongoLauncher: stopped'); // it really died without its shutdown hook

    docs = await store.start();
    const stored = new Map<string, number>();
    for await (const d of docs.find({}, { projection: { n: 1 } })) stored.set(String(d._id), d.n as number);
    const wrong: string[] = [];
    for (const [id, value] of expected) {
      if (inFlight.has(id)) continue;
      if (stored.get(id) !== value) wrong.push(`${id}: expected ${value}, stored ${stored.get(id)}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(acked).toBeGreaterThanOrEqual(3000);
  }, 300_000);

  it('removes documents a TTL index says have expired, and keeps the others', async () => {
    const sessions = store.client!.db('t').collection('sessies');
    await sessions.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    await sessions.createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
    const past = new Date(Date.now() - 60_000);
    await sessions.insertMany([
      { _id: 'expired' as never, expiresAt: past },
      { _id: 'later' as never, expiresAt: new Date(Date.now() + 3_600_000) },
      { _id: 'not-a-date' as never, expiresAt: 'tomorrow' },
      { _id: 'hour-old' as never, at: new Date(Date.now() - 7_200_000) },
      { _id: 'recent' as never, at: past },
    ]);
    const deadline = Date.now() + 15_000;
    while ((await sessions.countDocuments({})) > 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await sessions.find({}).sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual(['later', 'not-a-date', 'recent']);
  });

  it('answers from its indexes after the kill -9 as a scan of the documents does (the indexes are rebuilt at start)', async () => {
    const queries: [Record<string, unknown>, Record<string, 1 | -1>][] = [
      [{ n: { $gte: 10, $lt: 40 } }, { n: 1, code: -1 }],
      [{ n: { $in: [-5, -17, 3] } }, { code: -1 }],
      [{ group: 99 }, { _id: 1 }],
      [{ group: { $in: [3, 99] }, n: { $gt: 100 } }, { _id: -1 }],
      [{ code: { $gte: 1_000_000 } }, { code: 1 }],
    ];
    for (const [filter, sort] of queries) {
      const planned = await docs.find(filter).sort(sort).limit(500).toArray();
      const scanned = await docs
        .find(filter, { hint: { $natural: 1 } })
        .sort(sort)
        .limit(500)
        .toArray();
      expect(planned.length).toBeGreaterThan(0);
      expect(planned).toEqual(scanned);
    }
    const stats = await store.client!.db('t').command({ zgwQueryStats: 1 });
    expect(stats.database.indexed).toBeGreaterThanOrEqual(queries.length);
    // and a unique key still refuses a duplicate, leaving no trace in the other indexes
    await expect(docs.insertOne({ _id: 'dup-n' as never, code: 42, n: 123_456 })).rejects.toMatchObject({ code: 11000 });
    expect(await docs.find({ n: 123_456 }).toArray()).toEqual([]);
  });

  it('reopens after a large load and a clean stop, having folded the journal into a snapshot', async () => {
    const out = await store.stop('SIGTERM');
    expect(out).toContain('MongoLauncher: stopped');
    // the restart after the kill found a journal larger than the data and folded it into a snapshot
    expect(out).toContain('folded the journal into snapshot');
    docs = await store.start();
    expect(store.output).toMatch(/snapshot [1-9]\d* documents/);
    const sure = [...expected].filter(([id, v]) => v !== undefined && !inFlight.has(id)).length;
    const count = await docs.countDocuments({});
    // every acknowledged document is there; those whose write was on the way at the kill may be or not
    expect(count).toBeGreaterThanOrEqual(sure);
    expect(count).toBeLessThanOrEqual(sure + inFlight.size);
    expect((await docs.findOne({ _id: 'b12345' as never }))?.code).toBe(12345);
    // the unique index came back with the data
    await expect(docs.insertOne({ _id: 'dup' as never, code: 12345 })).rejects.toMatchObject({ code: 11000 });

    await store.stop('SIGTERM');
    docs = await store.start();
    expect(store.output).not.toContain('folded the journal');
    expect(await docs.countDocuments({})).toBe(count);
  }, 300_000);

  it('cuts off a record that a crash left half-written at the end of the journal, and goes on writing', async () => {
    const before = await docs.countDocuments({});
    await docs.insertOne({ _id: 'last' as never, code: -99_999, n: 7 });
    await store.stop('SIGKILL');
    const journal = join(
      store.dir,
      readdirSync(store.dir).find((f) => f.startsWith('journal-'))!,
    );
    // where the next record goes: after the last one ([int length][int crc32][payload] each, after a 16-byte header;
    // the file runs on beyond it, kept ahead as a hole that reads as zeros)
    const bytes = readFileSync(journal);
    let end = 16;
    while (end + 8 <= bytes.length && bytes.readInt32BE(end) > 0) end += 8 + bytes.readInt32BE(end);
    // a length and checksum promising 500 bytes, then only a few of them, written there
    const fd = openSync(journal, 'r+');
    writeSync(fd, Buffer.from([0, 0, 1, 244, 1, 2, 3, 4, 1, 0, 0, 0]), 0, 12, end);
    closeSync(fd);
    docs = await store.start();
    expect(store.output).toMatch(/cutting \d+ bytes after the last complete record/);
    expect(await docs.countDocuments({})).toBe(before + 1);
    expect((await docs.findOne({ _id: 'last' as never }))?.n).toBe(7);
    await docs.insertOne({ _id: 'after' as never, code: -100_000, n: 8 });
    await store.stop('SIGKILL');
    docs = await store.start();
    expect(await docs.countDocuments({})).toBe(before + 2);
  }, 120_000);

  it('with ZGW_MONGO_FOLD=1 folds the journal at start, so what documents held before they were rewritten leaves the files', async () => {
    const OLD = `clear-${Date.now()}`;
    const NEW = `sealed-${Date.now()}`;
    await docs.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `fold-${i}` as never, code: -200_000 - i, note: OLD })));
    await docs.updateMany({ _id: { $regex: '^fold-' } as never }, { $set: { note: NEW } });
    const inFiles = (needle: string) =>
      readdirSync(store.dir, { withFileTypes: true }).some((f) => f.isFile() && readFileSync(join(store.dir, f.name)).includes(needle));
    await store.stop('SIGTERM');
    expect(inFiles(OLD)).toBe(true); // the journal keeps the first writes
    docs = await store.start({ ZGW_MONGO_FOLD: '1' });
    expect(store.output).toContain('folded the journal into snapshot');
    expect(inFiles(OLD)).toBe(false);
    expect(inFiles(NEW)).toBe(true);
    expect(await docs.countDocuments({ note: NEW })).toBe(20);
  }, 120_000);
});
