import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MongoClient, type Document } from 'mongodb';
import { freePort, LocalStore, needsJava, repo, storeHome } from './local-store.helpers';

// Backup and restore of the local store: `npm run admin -- backup <dir>` takes a consistent copy while writes go on,
// and `scripts/engines.sh restore <dir>` brings it back; the restored store holds every collection as it was, its
// indexes included.
const run = promisify(execFile);

/** Every collection of every database but the system ones: name -> documents in _id order. */
async function contents(client: MongoClient): Promise<Map<string, Document[]>> {
  const out = new Map<string, Document[]>();
  const { databases } = await client.db('admin').admin().listDatabases();
  for (const { name } of databases) {
    if (['admin', 'local', 'config'].includes(name)) continue;
    for (const c of await client.db(name).listCollections().toArray()) {
      out.set(`${name}.${c.name}`, await client.db(name).collection(c.name).find({}).sort({ _id: 1 }).toArray());
    }
  }
  return out;
}

async function indexes(client: MongoClient, db: string, coll: string) {
  return (await client.db(db).collection(coll).indexes()).map((i) => ({
    name: i.name,
    key: i.key,
    unique: i.unique ?? false,
    sparse: i.sparse ?? false,
  }));
}

describe('local store: backup while it runs, and restore', () => {
  beforeAll(needsJava);
  let home: string;
  let store: LocalStore;
  const work = mkdtempSync(join(tmpdir(), 'zgw-backup-'));

  beforeAll(async () => {
    home = storeHome();
    store = new LocalStore(home, await freePort());
    await store.start();
  }, 120_000);

  afterAll(async () => {
    await store?.client?.close(true).catch(() => undefined);
    store?.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it('copies a consistent state while writes go on: everything acknowledged before it, and a restore that starts', async () => {
    const zaken = store.client!.db('zgw').collection('zaken');
    await zaken.createIndex({ zaaktype: 1, _created: 1, _id: 1 });
    await zaken.createIndex({ identificatie: 1 }, { unique: true });
    await zaken.insertMany(
      Array.from({ length: 20_000 }, (_, i) => ({
        _id: `z${i}`,
        identificatie: `ZAAK-${i}`,
        zaaktype: `t${i % 7}`,
        _created: new Date(i),
        n: 0,
      })) as never[],
    );
    const acknowledged: string[] = [];
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        await zaken.insertOne({ _id: `w${i}`, identificatie: `W-${i}`, zaaktype: 't1', _created: new Date(), n: i } as never);
        await zaken.updateOne({ _id: `z${i % 20_000}` as never }, { $inc: { n: 1 } });
        acknowledged.push(`w${i}`);
      }
    })();
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 10));
    const before = [...acknowledged];
    const dir = join(work, 'during');
    const { stdout } = await run('node', [join(repo, 'services/api/dist/cli/admin.js'), 'backup', dir], {
      env: { ...process.env, MONGODB_URL: store.url, MONGODB_DB: 'zgw' },
    });
    expect(JSON.parse(stdout)).toMatchObject({ dir, restore: `bash scripts/engines.sh restore ${dir}` });
    while (acknowledged.length < before.length + 200) await new Promise((r) => setTimeout(r, 10));
    stop = true;
    await writer;

    // the copy is a store of its own: it starts, holds everything acknowledged before the backup began, and its
    // indexes serve queries as a scan of its documents answers them
    const copy = new LocalStore(home, await freePort(), dir);
    try {
      await copy.start();
      const restored = copy.client!.db('zgw').collection('zaken');
      const ids = new Set((await restored.find({ _id: { $regex: '^w' } } as never, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)));
      expect(before.filter((id) => !ids.has(id))).toEqual([]);
      expect(ids.size).toBeLessThan(acknowledged.length); // a point in time, not the end
      expect(await restored.countDocuments({ _id: { $regex: '^z' } } as never)).toBe(20_000);
      const planned = await restored.find({ zaaktype: 't1' }).sort({ _created: 1, _id: 1 }).limit(50).toArray();
      expect(planned).toEqual(
        await restored
          .find({ zaaktype: 't1' }, { hint: { $natural: 1 } })
          .sort({ _created: 1, _id: 1 })
          .limit(50)
          .toArray(),
      );
      await expect(restored.insertOne({ _id: 'dup', identificatie: 'ZAAK-5' } as never)).rejects.toMatchObject({ code: 11000 });
    } finally {
      await copy.stop('SIGTERM');
    }
  }, 300_000);

  it('restores into a fresh data folder with scripts/engines.sh restore: every collection and index as it was', async () => {
    const client = store.client!;
    await client
      .db('other')
      .collection('documenten')
      .insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: `d${i}`, titel: `document ${i}`, trefwoorden: [`t${i % 3}`] })) as never[]);
    await client.db('other').collection('documenten').createIndex({ trefwoorden: 1 });
    await client
      .db('zgw')
      .collection('zaken')
      .deleteMany({ _id: { $regex: '^z1' } } as never);
    const expected = await contents(client);
    const dir = join(work, 'quiet');
    await client.db('zgw').command({ zgwBackup: 1, dir });

    const data = mkdtempSync(join(tmpdir(), 'zgw-restore-'));
    const port = await freePort();
    const env = { ...process.env, ZGW_DATA_DIR: data, ZGW_MONGO_PORT: String(port) };
    try {
      await run('bash', [join(repo, 'scripts/engines.sh'), 'restore', dir], { env });
      const restored = await MongoClient.connect(`mongodb://127.0.0.1:${port}`, { directConnection: true });
      try {
        const got = await contents(restored);
        expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [name, docs] of expected) expect({ name, docs: got.get(name) }).toEqual({ name, docs });
        expect(await indexes(restored, 'zgw', 'zaken')).toEqual(await indexes(client, 'zgw', 'zaken'));
        expect(await indexes(restored, 'other', 'documenten')).toEqual(await indexes(client, 'other', 'documenten'));
      } finally {
        await restored.close();
      }
    } finally {
      await run('bash', [join(repo, 'scripts/engines.sh'), 'stop', 'mongo'], { env }).catch(() => undefined);
      rmSync(data, { recursive: true, force: true });
    }
  }, 300_000);

  it('refuses a backup into a folder that holds files', async () => {
    await expect(store.client!.db('zgw').command({ zgwBackup: 1, dir: join(work, 'quiet') })).rejects.toThrow(/not empty/);
  });
});
