import { randomUUID } from 'node:crypto';
import { NRC_DELIVERIES, NRC_NOTIFICATIES, deliveryId, ensureNrcIndexes } from '@zgw/shared';
import { ensureAllRights } from '../../api/src/bootstrap';
import { token } from '../../api/test/harness';
import { Receivers } from './receivers';
import { ADMIN_NRC, NRC, eventually, receivedAtLeast, urlsOf, uuidOf, world, type World } from './world';

// A resend, the deliveries of an abonnement and a resend request are the tenant's own: an organisation's administrator
// resending on a kanaal both organisations use gets its own kept notifications only.
let w: World;
const receivers = new Receivers();
const B = '123456782';
let b: string;

beforeAll(async () => {
  w = await world();
  expect((await w.t.call('POST', '/admin/api/v1/tenants', { rsin: B, naam: 'Gemeente B' })).statusCode).toBe(201);
  expect((await w.t.call('POST', '/admin/api/v1/credentials', { identifier: 'beheer-b', secret: 'beheer-b-secret', tenant: B })).statusCode).toBe(
    201,
  );
  await ensureAllRights(w.t.deps.db, 'beheer-b', B);
  b = token('beheer-b', 'beheer-b-secret');
});
afterAll(async () => {
  await w?.close();
  await receivers.closeAll();
});

/** Publishes a notification on kanaal zaken as the given client (default: the default tenant's test client). */
async function publish(tok?: string): Promise<string> {
  const resourceUrl = `https://example.com/zaken/${randomUUID()}`;
  const body = {
    kanaal: 'zaken',
    hoofdObject: resourceUrl,
    resource: 'zaak',
    resourceUrl,
    actie: 'create',
    aanmaakdatum: new Date(w.clock.now()).toISOString(),
    kenmerken: {},
  };
  expect((await w.t.call('POST', `${NRC}/notificaties`, body, tok ? { token: tok } : {})).statusCode).toBe(201);
  return resourceUrl;
}

it("resends the kept notifications of the abonnement's own tenant only, and shows a resend to its tenant only", async () => {
  // B subscribes to zaken and receives a notification of its own, which the notifier keeps for resends.
  const theirs = await receivers.start();
  const made = await w.t.call('POST', `${NRC}/abonnement`, { callbackUrl: theirs.url, auth: 'Bearer b', kanalen: [{ naam: 'zaken' }] }, { token: b });
  expect(made.statusCode).toBe(201);
  await w.notifier.refresh();
  const secret = await publish(b);
  expect(await receivedAtLeast(theirs, 1)).toBe(true);
  expect(await w.t.mongo.db.collection(NRC_NOTIFICATIES).countDocuments({ 'message.resourceUrl': secret })).toBe(1);

  // A (the default tenant) subscribes to the same kanaal, receives one of its own, and asks for a resend of everything.
  const mine = await receivers.start();
  const url = await w.abonnement(mine, [{ naam: 'zaken' }]);
  const own = await publish();
  expect(await receivedAtLeast(mine, 1)).toBe(true);
  await w.notifier.deliverer.settle();
  const req = await w.admin('POST', `/abonnementen/${uuidOf(url)}/resend`, {});
  expect(req.statusCode).toBe(202);
  await w.notifier.refresh();
  await w.notifier.deliverer.settle();
  expect(await eventually(async () => (await w.admin('GET', `/resends/${req.json().id}`)).json().state === 'done')).toBe(true);
  expect((await w.admin('GET', `/resends/${req.json().id}`)).json()).toMatchObject({ state: 'done', queued: 1 });
  expect(urlsOf(mine)).toEqual([own, own]);
  expect((await w.deliveries(url)).map((d) => d.notificatie)).toHaveLength(1);

  // B's administrator does not see A's resend request, nor A's abonnement's deliveries.
  const asB = (path: string) => w.t.call('GET', `${ADMIN_NRC}${path}`, undefined, { token: b });
  expect((await asB(`/resends/${req.json().id}`)).statusCode).toBe(404);
  expect((await asB(`/abonnementen/${uuidOf(url)}/deliveries`)).statusCode).toBe(404);
  const bResend = await w.t.call('POST', `${ADMIN_NRC}/abonnementen/${uuidOf(made.json().url)}/resend`, {}, { token: b });
  expect(bResend.statusCode).toBe(202);
  expect((await w.admin('GET', `/resends/${bResend.json().id}`)).statusCode).toBe(404);
  expect((await asB(`/resends/${bResend.json().id}`)).statusCode).toBe(200);
});

it("lists an abonnement's deliveries with the kept messages of its own tenant only", async () => {
  const theirs = await receivers.start();
  const made = await w.t.call('POST', `${NRC}/abonnement`, { callbackUrl: theirs.url, auth: 'Bearer b', kanalen: [{ naam: 'zaken' }] }, { token: b });
  expect(made.statusCode).toBe(201);
  await w.notifier.refresh();
  const secret = await publish(b);
  expect(await eventually(async () => urlsOf(theirs).includes(secret))).toBe(true);
  const kept = await w.t.mongo.db.collection<{ _id: string }>(NRC_NOTIFICATIES).findOne({ 'message.resourceUrl': secret });
  expect(kept).not.toBeNull();

  // A delivery of B's notification recorded for A's abonnement (as a resend across tenants once made them).
  const mine = await receivers.start();
  const url = await w.abonnement(mine, [{ naam: 'zaken', filters: { bronorganisatie: 'niemand' } }]);
  const now = new Date(w.clock.now());
  await w.t.mongo.db.collection(NRC_DELIVERIES).insertOne({
    _id: deliveryId(uuidOf(url), kept!._id),
    abonnement: uuidOf(url),
    notificatie: kept!._id,
    kanaal: 'zaken',
    state: 'delivered',
    createdAt: now,
    doneAt: now,
    deliveredAt: now,
    tries: 1,
    attempts: [],
  } as never);
  const listed = await w.admin('GET', `/abonnementen/${uuidOf(url)}/deliveries`);
  expect(listed.statusCode).toBe(200);
  const results = listed.json().results as { notificatie: Record<string, unknown> }[];
  expect(results).toHaveLength(1);
  expect(results[0]!.notificatie).toEqual({ id: kept!._id, kanaal: 'zaken' });
  expect(JSON.stringify(listed.json())).not.toContain(secret);
});

it('replaces the index of kept notifications led by the kanaal with one led by the tenant', async () => {
  const kept = w.t.mongo.db.collection(NRC_NOTIFICATIES);
  await kept.createIndex({ kanaal: 1, receivedAt: 1, _id: 1 });
  await ensureNrcIndexes(w.t.mongo.db);
  const names = (await kept.indexes()).map((ix) => ix.name);
  expect(names).toContain('_tenant_1_kanaal_1_receivedAt_1__id_1');
  expect(names).not.toContain('kanaal_1_receivedAt_1__id_1');
  // once gone, a next start has nothing to drop
  await ensureNrcIndexes(w.t.mongo.db);
});

it("gives up a pending delivery of another tenant's notification instead of sending it", async () => {
  const theirs = await receivers.start();
  const made = await w.t.call('POST', `${NRC}/abonnement`, { callbackUrl: theirs.url, auth: 'Bearer b', kanalen: [{ naam: 'zaken' }] }, { token: b });
  expect(made.statusCode).toBe(201);
  await w.notifier.refresh();
  const secret = await publish(b);
  expect(await eventually(async () => urlsOf(theirs).includes(secret))).toBe(true);
  const kept = await w.t.mongo.db.collection<{ _id: string }>(NRC_NOTIFICATIES).findOne({ 'message.resourceUrl': secret });

  // A pending delivery of B's notification for A's abonnement (as a resend across tenants once queued them).
  const mine = await receivers.start();
  const url = await w.abonnement(mine, [{ naam: 'zaken', filters: { bronorganisatie: 'niemand-anders' } }]);
  const now = new Date(w.clock.now());
  const id = deliveryId(uuidOf(url), kept!._id);
  await w.t.mongo.db.collection(NRC_DELIVERIES).insertOne({
    _id: id,
    abonnement: uuidOf(url),
    notificatie: kept!._id,
    kanaal: 'zaken',
    state: 'pending',
    createdAt: now,
    nextAt: now,
    tries: 0,
    attempts: [],
  } as never);
  await w.notifier.deliverer.reload(w.notifier.deliverer.lane(uuidOf(url))!);
  await w.notifier.deliverer.settle();
  expect(urlsOf(mine)).toEqual([]);
  expect(await w.t.mongo.db.collection(NRC_DELIVERIES).findOne({ _id: id as never })).toMatchObject({ state: 'failed' });
});
