import { AUDIT_READS_COLLECTION, AUDIT_READS_TOPIC, AUDIT_TOPIC, AUDITTRAIL_COLLECTION, type AuditEntry } from '@zgw/shared';
import { startReferentielijsten, type Referentielijsten } from '../../api/test/catalogi.fixtures';
import { startApp, type TestApp } from '../../api/test/harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from '../../api/test/zaken.fixtures';
import type { StoredEntry } from '../src/entries';
import { startAuditWorker, type AuditWorker } from '../src/worker';
import { eventually, silent, world, type World } from './world';

// End to end: writes and reads through the API (in-process, as its own tests start it) reach the trail through the
// outbox relay or the read spool, Kafka and the audit worker, each entry exactly once under its own uuid.
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
let w: World;
let worker: AuditWorker | undefined;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
  // The worker's world: the API's database and topic prefix.
  w = await world({ MONGODB_DB: t.config.MONGODB_DB, KAFKA_TOPIC_PREFIX: t.topicPrefix });
});
afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await w?.close();
  await sl?.close();
});

const trail = () => t.mongo.db.collection<StoredEntry>(AUDITTRAIL_COLLECTION);
const entriesOf = async (zaakUrl: string) => {
  const res = await t.call('GET', `${zaakUrl}/audittrail`);
  expect(res.statusCode).toBe(200);
  return res.json() as AuditEntry[];
};

describe('audit trail end to end', () => {
  it('stores the entries of API writes from Kafka under their uuid, once, also those the API stored itself', async () => {
    // Writes before the worker runs: the API stores each entry at once and puts it in the outbox.
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    expect((await t.call('PATCH', zaak.url, { omschrijving: 'Gewijzigd' }, { headers: CRS })).statusCode).toBe(200);
    const written = await trail().find({ hoofdObject: zaak.url }).sort({ aanmaakdatum: 1, _id: 1 }).toArray();
    expect(written.map((e) => e.actie)).toEqual(['create', 'partial_update']);
    // As if the API had stopped between the write and its own store: only the outbox has them.
    await trail().deleteMany({ hoofdObject: zaak.url });
    expect(await entriesOf(zaak.url)).toEqual([]);

    worker = await startAuditWorker(w.config, silent);
    expect(await eventually(async () => (await trail().countDocuments({ hoofdObject: zaak.url })) === 2)).toBe(true);
    expect(await trail().find({ hoofdObject: zaak.url }).sort({ aanmaakdatum: 1, _id: 1 }).toArray()).toEqual(written);

    // A write while the worker runs: stored by the API and by the worker, kept once.
    const status = await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-02T10:00:00' });
    expect(status.url).toBeDefined();
    // The relay has published all three entries, and the worker has consumed them.
    expect(await eventually(async () => (await w.published(AUDIT_TOPIC)) === 3)).toBe(true);
    expect(await eventually(() => w.caughtUp(AUDIT_TOPIC))).toBe(true);
    const list = await entriesOf(zaak.url);
    expect(list.map((e) => e.actie)).toEqual(['create', 'partial_update', 'create']);
    expect(list.map((e) => e.uuid)).toEqual([...written.map((e) => e._id), list[2]!.uuid]);
    expect(new Set(list.map((e) => e.uuid)).size).toBe(3);
    expect(await trail().countDocuments({ hoofdObject: zaak.url })).toBe(3);
  });

  it('stores the read entries of API reads in auditreads', async () => {
    worker ??= await startAuditWorker(w.config, silent);
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    expect((await t.call('GET', zaak.url, undefined, { headers: CRS })).statusCode).toBe(200);
    const reads = t.mongo.db.collection<StoredEntry>(AUDIT_READS_COLLECTION);
    expect(await eventually(async () => (await reads.countDocuments({ hoofdObject: zaak.url })) === 1)).toBe(true);
    expect(await eventually(() => w.caughtUp(AUDIT_READS_TOPIC))).toBe(true);
    const [read, ...more] = await reads.find({ hoofdObject: zaak.url }).toArray();
    expect(more).toEqual([]);
    expect(read).toMatchObject({ _id: read!.uuid, clientId: 'test-admin', actie: 'retrieve', resource: 'zaak', hoofdObject: zaak.url, resultaat: 200 });
  });
});
