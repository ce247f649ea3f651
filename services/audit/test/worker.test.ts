import { randomUUID } from 'node:crypto';
import { AUDIT_READS_COLLECTION, AUDIT_READS_TOPIC, AUDIT_TOPIC, AUDITTRAIL_COLLECTION, DEFAULT_TENANT } from '@zgw/shared';
import type { AuditCollection, StoredEntry } from '../src/entries';
import { MongoEntryStore } from '../src/store';
import { startAuditWorker, type AuditWorker } from '../src/worker';
import { auditEntry, readEntry } from './fixtures';
import { eventually, silent, world, type World } from './world';

// The audit worker on the real engines: what reaches it through Kafka is stored once, whatever is delivered twice,
// stored before, or interrupted.

let w: World;
const workers: AuditWorker[] = [];
const start = async (opts: Parameters<typeof startAuditWorker>[2] = {}) => {
  const worker = await startAuditWorker(w.config, silent, opts);
  workers.push(worker);
  return worker;
};
const stop = async (worker: AuditWorker) => {
  workers.splice(workers.indexOf(worker), 1);
  await worker.stop();
};

beforeEach(async () => {
  w = await world();
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  await w.close();
});

const trail = () => w.mongo.db.collection<StoredEntry>(AUDITTRAIL_COLLECTION);
const reads = () => w.mongo.db.collection<StoredEntry>(AUDIT_READS_COLLECTION);
/** How many times each uuid is stored (0 when it is not). */
const counts = async (coll: ReturnType<typeof trail>, uuids: string[]) => {
  const docs = await coll.find({ _id: { $in: uuids } }).toArray();
  return uuids.map((u) => docs.filter((d) => d._id === u).length);
};

describe('audit worker', () => {
  it('stores an entry published twice once, and leaves an entry the API stored directly as it was', async () => {
    const twice = auditEntry();
    const direct = auditEntry({ toelichting: 'as stored by the API' });
    const other = auditEntry();
    // The API stored `direct` right after its write (read-your-writes), the same way the worker stores.
    await trail().updateOne({ _id: direct.uuid }, { $setOnInsert: { ...direct } }, { upsert: true });
    await w.publish(AUDIT_TOPIC, [twice, { ...direct, toelichting: 'a copy that differs' }, twice, 'not an entry', other]);
    await start();
    expect(await eventually(() => w.caughtUp(AUDIT_TOPIC))).toBe(true);
    await w.publish(AUDIT_TOPIC, [twice, direct]);
    expect(await eventually(() => w.caughtUp(AUDIT_TOPIC))).toBe(true);
    expect(await counts(trail(), [twice.uuid, direct.uuid, other.uuid])).toEqual([1, 1, 1]);
    expect(await trail().countDocuments()).toBe(3);
    // a message that names no tenant (sent before tenants) files its entry in the default tenant's trail
    expect(await trail().findOne({ _id: twice.uuid })).toEqual({ _id: twice.uuid, ...twice, _tenant: DEFAULT_TENANT });
    expect((await trail().findOne({ _id: direct.uuid }))!.toelichting).toBe('as stored by the API');
  });

  it('stores read entries in auditreads, each once', async () => {
    const list = readEntry({ actie: 'list', resourceUrl: undefined, hoofdObject: undefined, aantal: 12, request: '/zaken/api/v1/zaken?page=1' });
    const detail = readEntry();
    // a page of zaken as the API sends it: a zaak that is its own main object named by its index alone
    const [z1, z2] = [readEntry().hoofdObject!, readEntry().hoofdObject!];
    const rol = `http://127.0.0.1:8000/zaken/api/v1/rollen/${randomUUID()}`;
    const page = readEntry({
      actie: 'zoek',
      resourceUrl: undefined,
      hoofdObject: undefined,
      hoofdObjecten: [z1, z2],
      getoond: [0, ['rol', rol, 0], 1],
    });
    await w.publish(AUDIT_READS_TOPIC, [list, detail, detail, page]);
    await start();
    expect(await eventually(() => w.caughtUp(AUDIT_READS_TOPIC))).toBe(true);
    expect(await counts(reads(), [list.uuid, detail.uuid, page.uuid])).toEqual([1, 1, 1]);
    // stored with each object written out whole (the trails and the auditor's screens read that form)
    expect((await reads().findOne({ _id: page.uuid }))!.getoond).toEqual([
      ['zaak', z1, 0],
      ['rol', rol, 0],
      ['zaak', z2, 1],
    ]);
    // stored as sent, with the moment as a date for the TTL index; a detail read of an older API (no hoofdObjecten)
    // is in the trail of its one object
    expect(await reads().findOne({ _id: list.uuid })).toEqual({
      _id: list.uuid,
      ...JSON.parse(JSON.stringify(list)),
      _aangemaakt: new Date(list.aanmaakdatum),
      _tenant: DEFAULT_TENANT,
    });
    expect(await reads().findOne({ _id: detail.uuid })).toMatchObject({
      hoofdObjecten: [detail.hoofdObject],
      getoond: [['zaak', detail.resourceUrl, 0]],
    });
    expect(await trail().countDocuments()).toBe(0);
  });

  it('declares the indexes of both collections', async () => {
    await start();
    const keys = async (c: string) => (await w.mongo.db.collection(c).listIndexes().toArray()).map((i) => i.key as Record<string, number>);
    // each led by the tenant, but for the TTL index of the retention sweep
    expect(await keys(AUDITTRAIL_COLLECTION)).toContainEqual({ _tenant: 1, hoofdObject: 1, aanmaakdatum: 1, _id: 1 });
    expect(await keys(AUDIT_READS_COLLECTION)).toEqual(
      expect.arrayContaining([
        { _tenant: 1, clientId: 1, aanmaakdatum: 1, _id: 1 },
        { _tenant: 1, hoofdObjecten: 1, aanmaakdatum: 1, _id: 1 },
        { _aangemaakt: 1 },
      ]),
    );
  });

  it('loses nothing when stopped part-way: what was not stored is not committed, and the next start stores it once', async () => {
    const entries = Array.from({ length: 30 }, () => auditEntry());
    await w.publish(AUDIT_TOPIC, entries);
    // The first worker stores two chunks of five, then its database goes away; it is stopped while retrying.
    let chunks = 0;
    const first = await start({
      chunkSize: 5,
      retry: { initialMs: 50, maxMs: 200 },
      store: (m) => {
        const real = new MongoEntryStore(m.db);
        return {
          insertAbsent: async (c: AuditCollection, e: StoredEntry[]) => {
            if (++chunks > 2) throw new Error('connection closed');
            return real.insertAbsent(c, e);
          },
        };
      },
    });
    expect(await eventually(async () => (await w.committed()) === 10 && chunks > 3)).toBe(true);
    await stop(first);
    expect(await trail().countDocuments()).toBe(10);
    expect(await w.committed()).toBe(10);

    // Entries published while no worker runs wait in Kafka too.
    const later = Array.from({ length: 5 }, () => auditEntry());
    await w.publish(AUDIT_TOPIC, later);
    await start({ chunkSize: 5 });
    expect(await eventually(() => w.caughtUp(AUDIT_TOPIC))).toBe(true);
    const all = [...entries, ...later].map((e) => e.uuid);
    expect(await counts(trail(), all)).toEqual(all.map(() => 1));
    expect(await trail().countDocuments()).toBe(35);
  });

  it('stores everything once the database is back after an outage, committing only then', async () => {
    const entries = Array.from({ length: 8 }, () => auditEntry());
    let failures = 4;
    let committedDuringOutage: number | undefined;
    await start({
      retry: { initialMs: 50, maxMs: 100 },
      store: (m) => {
        const real = new MongoEntryStore(m.db);
        return {
          insertAbsent: async (c: AuditCollection, e: StoredEntry[]) => {
            if (failures-- > 0) {
              committedDuringOutage = await w.committed();
              throw new Error('connect ECONNREFUSED');
            }
            return real.insertAbsent(c, e);
          },
        };
      },
    });
    await w.publish(AUDIT_TOPIC, entries);
    expect(await eventually(() => w.caughtUp(AUDIT_TOPIC))).toBe(true);
    expect(failures).toBeLessThan(0);
    expect(committedDuringOutage).toBe(-1);
    expect(
      await counts(
        trail(),
        entries.map((e) => e.uuid),
      ),
    ).toEqual(entries.map(() => 1));
  });
});

describe('MongoEntryStore', () => {
  it('inserts what is absent, reports what is present, and never replaces it', async () => {
    const store = new MongoEntryStore(w.mongo.db);
    const a = auditEntry();
    const b = auditEntry();
    const doc = (e: typeof a) => ({ _id: e.uuid, ...e });
    expect(await store.insertAbsent(AUDITTRAIL_COLLECTION, [doc(a)])).toEqual({ inserted: 1, present: 0, rejected: [] });
    expect(await store.insertAbsent(AUDITTRAIL_COLLECTION, [doc({ ...a, toelichting: 'changed' }), doc(b), doc(b)])).toEqual({
      inserted: 1,
      present: 2,
      rejected: [],
    });
    expect(await trail().find().sort({ _id: 1 }).toArray()).toEqual([doc(a), doc(b)].sort((x, y) => (x._id < y._id ? -1 : 1)));
  });
});
