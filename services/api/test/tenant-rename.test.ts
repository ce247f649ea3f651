import { randomUUID } from 'node:crypto';
import {
  DOELREGISTRATIES_COLLECTION,
  IMPORTEN_COLLECTION,
  NRC_DELIVERIES,
  NRC_KANALEN,
  NRC_NOTIFICATIES,
  OVERDRACHT_INSTELLINGEN_COLLECTION,
  platformDb,
  TENANT_FIELD,
} from '@zgw/shared';
import { startApp, type TestApp } from './harness';

// `npm run admin -- tenant-rename` moves everything that names the organisation by its RSIN: its objects, and also the
// events still waiting in their outboxes, its own kanalen, the notifications kept for it and their deliveries, its
// import runs, and other organisations' doelregistraties and consent lists that name it.
const OLD = '100000009';
const NEW = '100000022';
const OTHER = '123456782';
let t: TestApp;
beforeAll(async () => {
  t = await startApp({ METRICS_PUBLIC: 'true' });
  for (const rsin of [OLD, OTHER]) expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam: `Gemeente ${rsin}` })).statusCode).toBe(201);
});
afterAll(async () => t?.close());

it('moves the events waiting in outboxes, its kanalen, kept notifications, deliveries, imports and what others name it by', async () => {
  const db = platformDb(t.mongo.db);
  const zaak = randomUUID();
  const event = (tenant: string) => ({ id: randomUUID(), topic: 'zaken', key: zaak, payload: {}, createdAt: new Date(), tenant });
  await db.collection('zaken').insertOne({ _id: zaak as never, [TENANT_FIELD]: OLD, _created: new Date(), _outbox: [event(OLD), event(OLD)] });
  await db.collection(NRC_KANALEN).insertOne({ _id: randomUUID() as never, naam: 'eigen', [TENANT_FIELD]: OLD });
  await db.collection(NRC_NOTIFICATIES).insertOne({ _id: randomUUID() as never, kanaal: 'zaken', [TENANT_FIELD]: OLD, receivedAt: new Date() });
  await db.collection(NRC_DELIVERIES).insertOne({ _id: randomUUID() as never, state: 'pending', [TENANT_FIELD]: OLD });
  await db.collection(IMPORTEN_COLLECTION).insertOne({ _id: randomUUID() as never, tenant: OLD });
  await db.collection(DOELREGISTRATIES_COLLECTION).insertOne({ _id: 'naar-oud' as never, route: 'intern', tenant: OLD, [TENANT_FIELD]: OTHER });
  await db
    .collection(OVERDRACHT_INSTELLINGEN_COLLECTION)
    .insertOne({ _id: randomUUID() as never, accepteertVan: [OTHER, OLD], [TENANT_FIELD]: OTHER });

  await t.deps.tenants.rename(OLD, NEW);

  const stored = await db.collection('zaken').findOne({ _id: zaak as never });
  expect(stored?.[TENANT_FIELD]).toBe(NEW);
  expect((stored?._outbox as { tenant: string }[]).map((e) => e.tenant)).toEqual([NEW, NEW]);
  for (const name of [NRC_KANALEN, NRC_NOTIFICATIES, NRC_DELIVERIES]) {
    expect(await db.collection(name).countDocuments({ [TENANT_FIELD]: OLD })).toBe(0);
    expect(await db.collection(name).countDocuments({ [TENANT_FIELD]: NEW })).toBe(1);
  }
  expect(await db.collection(IMPORTEN_COLLECTION).countDocuments({ tenant: NEW })).toBe(1);
  expect((await db.collection(DOELREGISTRATIES_COLLECTION).findOne({ _id: 'naar-oud' as never }))?.tenant).toBe(NEW);
  expect((await db.collection(OVERDRACHT_INSTELLINGEN_COLLECTION).findOne({ [TENANT_FIELD]: OTHER }))?.accepteertVan).toEqual([OTHER, NEW]);
  // and nothing anywhere names the old RSIN as a tenant any more
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    expect([name, await db.collection(name).countDocuments({ $or: [{ [TENANT_FIELD]: OLD }, { tenant: OLD }] })]).toEqual([name, 0]);
  }
});
