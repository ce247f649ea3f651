import Ajv from 'ajv';
import addFormats from 'ajv-formats';
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
    expect(read).toMatchObject({
      _id: read!.uuid,
      clientId: 'test-admin',
      actie: 'retrieve',
      resource: 'zaak',
      hoofdObject: zaak.url,
      resultaat: 200,
    });
    // kept for AUDIT_READS_RETENTION_DAYS (default 365) by a TTL index on the entry's moment as a date
    expect(read!._aangemaakt).toEqual(new Date(String(read!.aanmaakdatum)));
    const ttl = (await reads.listIndexes().toArray()).find((i) => i.key._aangemaakt === 1);
    expect(ttl?.expireAfterSeconds).toBe(365 * 86_400);
  });

  it('shows every read in the trail of each zaak it showed, line by line, valid against the standard, in time order with the writes', async () => {
    worker ??= await startAuditWorker(w.config, silent);
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const other = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const status = await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-02T10:00:00' });
    const get = async (url: string, headers: Record<string, string> = {}) => t.call('GET', url, undefined, { headers: { ...CRS, ...headers } });
    const detail = await get(zaak.url);
    expect(detail.statusCode).toBe(200);
    expect((await get(zaak.url, { 'if-none-match': String(detail.headers.etag) })).statusCode).toBe(304);
    expect((await get(`${zaak.url}?expand=status`)).statusCode).toBe(200);
    const zoek = await t.call('POST', `${ZRC}/zaken/_zoek`, { uuid__in: [zaak.url, other.url].map((u) => u.split('/').pop()) }, { headers: CRS });
    expect(zoek.json().count).toBe(2);
    expect((await get(`${ZRC}/statussen?zaak=${encodeURIComponent(zaak.url)}`)).statusCode).toBe(200);
    expect((await t.call('PATCH', zaak.url, { omschrijving: 'Na het lezen' }, { headers: CRS })).statusCode).toBe(200);

    const expected = [
      ['create', 'zaak', zaak.url],
      ['create', 'status', status.url],
      ['retrieve', 'zaak', zaak.url],
      ['retrieve', 'zaak', zaak.url],
      ['retrieve', 'zaak', zaak.url],
      ['list', 'status', status.url],
      ['list', 'zaak', zaak.url],
      ['list', 'status', status.url],
      ['partial_update', 'zaak', zaak.url],
    ];
    let trail: AuditEntry[] = [];
    expect(await eventually(async () => (trail = await entriesOf(zaak.url)).length === expected.length)).toBe(true);
    expect(trail.map((e) => [e.actie, e.resource, e.resourceUrl])).toEqual(expected);
    expect(trail.map((e) => e.resultaat)).toEqual([201, 201, 200, 304, 200, 200, 200, 200, 200]);
    expect(trail.map((e) => e.aanmaakdatum)).toEqual(trail.map((e) => e.aanmaakdatum).sort());
    expect(trail[2]).toMatchObject({
      bron: 'zrc',
      applicatieId: 'test-admin',
      actieWeergave: 'Object opgehaald',
      hoofdObject: zaak.url,
      resourceWeergave: zaak.identificatie,
      wijzigingen: {},
    });
    expect(trail[6]).toMatchObject({ actie: 'list', actieWeergave: 'Gevonden met _zoek' });
    expect(new Set(trail.map((e) => e.uuid)).size).toBe(expected.length);
    for (const entry of trail) expect({ entry, errors: validAuditTrail(entry) ? [] : validAuditTrail.errors }).toEqual({ entry, errors: [] });
    // each line, read ones too, at its own URL
    for (const entry of trail) {
      const one = await t.call('GET', `${zaak.url}/audittrail/${entry.uuid}`);
      expect([one.statusCode, one.json()]).toEqual([200, entry]);
    }
    // the other zaak's trail has its create and the one _zoek that showed it
    const others = await entriesOf(other.url);
    expect(others.map((e) => [e.actie, e.resourceUrl])).toEqual([
      ['create', other.url],
      ['list', other.url],
    ]);
    expect((await t.call('GET', `${other.url}/audittrail/${trail[7]!.uuid}`)).statusCode).toBe(404);
  });
});

/** The standard's AuditTrail (Zaken 1.5.1, components.schemas.AuditTrail with BronEnum and Wijzigingen), for ajv. */
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validAuditTrail = ajv.compile({
  type: 'object',
  required: ['aanmaakdatum', 'actie', 'bron', 'hoofdObject', 'resource', 'resourceUrl', 'resourceWeergave', 'resultaat', 'wijzigingen'],
  properties: {
    uuid: { type: 'string', format: 'uuid' },
    bron: { type: 'string', enum: ['ac', 'nrc', 'zrc', 'ztc', 'drc', 'brc', 'cmc', 'kc', 'vrc'] },
    applicatieId: { type: 'string', maxLength: 100 },
    applicatieWeergave: { type: 'string', maxLength: 200 },
    gebruikersId: { type: 'string', maxLength: 255 },
    gebruikersWeergave: { type: 'string', maxLength: 255 },
    actie: { type: 'string', maxLength: 50 },
    actieWeergave: { type: 'string', maxLength: 200 },
    resultaat: { type: 'integer', minimum: 100, maximum: 599 },
    hoofdObject: { type: 'string', format: 'uri', maxLength: 1000 },
    resource: { type: 'string', maxLength: 50 },
    resourceUrl: { type: 'string', format: 'uri', maxLength: 1000 },
    toelichting: { type: 'string' },
    resourceWeergave: { type: 'string', maxLength: 200 },
    aanmaakdatum: { type: 'string', format: 'date-time' },
    wijzigingen: { type: 'object', properties: { oud: { type: 'object' }, nieuw: { type: 'object' } } },
  },
});
