import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import { EVENT_ID_HEADER, KANALEN, NOTIFICATION_ID_HEADER, NRC_DELIVERIES, NRC_RESENDS, NRC_STATUS, createKafka, kanaalTopic } from '@zgw/shared';
import { platformKanaalUuid } from '../src/components/notificaties/kanalen';
import { eventually, startApp, token, type TestApp } from './harness';

const NRC = '/notificaties/api/v1';
const ADMIN = '/admin/api/v1/notificaties';

/** A callback for abonnementen: answers `status`, records the requests. */
interface Callback {
  url: string;
  status: number;
  requests: { auth?: string; id?: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

async function callback(status = 204): Promise<Callback> {
  const cb = { status, requests: [] } as unknown as Callback;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      cb.requests.push({
        auth: req.headers.authorization,
        id: req.headers[NOTIFICATION_ID_HEADER.toLowerCase()] as string,
        body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
      });
      res.writeHead(cb.status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cb.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  cb.close = () => new Promise<void>((r) => server.close(() => r()));
  return cb;
}

let t: TestApp;
let ok: Callback;
let failing: Callback;
beforeAll(async () => {
  t = await startApp();
  ok = await callback(204);
  failing = await callback(500);
});
afterAll(async () => {
  await t.close();
  await ok.close();
  await failing.close();
});

const abonnementBody = (over: Record<string, unknown> = {}) => ({
  callbackUrl: ok.url,
  auth: 'Bearer secret-token',
  kanalen: [{ naam: 'zaken', filters: { bronorganisatie: '123456782' } }],
  ...over,
});
const message = (over: Record<string, unknown> = {}) => ({
  kanaal: 'zaken',
  hoofdObject: 'https://example.com/zaken/1',
  resource: 'zaak',
  resourceUrl: 'https://example.com/zaken/1',
  actie: 'create',
  aanmaakdatum: '2026-01-01T12:00:00Z',
  kenmerken: { bronorganisatie: '123456782' },
  ...over,
});

async function scoped(scopes: string[]): Promise<string> {
  const clientId = `nrc-${randomUUID()}`;
  await t.client(clientId, 'nrc-secret-123');
  const app = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [clientId],
    label: clientId,
    autorisaties: [{ component: 'nrc', scopes }],
  });
  expect(app.statusCode).toBe(201);
  return token(clientId, 'nrc-secret-123');
}

describe('kanalen', () => {
  it("has the platform's own kanalen from the start, each with its kenmerken and a uuid of its own name", async () => {
    const list = await t.call('GET', `${NRC}/kanaal`);
    expect(list.statusCode).toBe(200);
    expect(list.headers['api-version']).toBe('1.0.0');
    const byNaam = new Map((list.json() as { naam: string; url: string; filters: string[] }[]).map((k) => [k.naam, k]));
    for (const naam of KANALEN) expect(byNaam.get(naam)?.url).toBe(`http://127.0.0.1:8000${NRC}/kanaal/${platformKanaalUuid(naam)}`);
    expect(byNaam.get('zaken')!.filters).toEqual(['bronorganisatie', 'zaaktype', 'vertrouwelijkheidaanduiding']);
    expect(byNaam.get('besluiten')!.filters).toEqual(['verantwoordelijkeOrganisatie', 'besluittype']);
    const zaken = await t.call('GET', byNaam.get('zaken')!.url);
    expect(zaken.statusCode).toBe(200);
    expect(zaken.json()).toMatchObject({ naam: 'zaken', documentatieLink: expect.stringMatching(/^https:/) });
    const filtered = await t.call('GET', `${NRC}/kanaal?naam=documenten`);
    expect(filtered.json().map((k: { naam: string }) => k.naam)).toEqual(['documenten']);
    expect((await t.call('GET', `${NRC}/kanaal?naam=bestaat-niet`)).json()).toEqual([]);
  });

  it('creates a kanaal once per naam; refuses bad input', async () => {
    const naam = `k-${randomUUID().slice(0, 8)}`;
    const created = await t.call('POST', `${NRC}/kanaal`, { naam, documentatieLink: 'https://example.com/doc', filters: ['soort'] });
    expect(created.statusCode).toBe(201);
    expect(created.headers.location).toBe(created.json().url);
    expect(created.json()).toMatchObject({ naam, documentatieLink: 'https://example.com/doc', filters: ['soort'] });
    const again = await t.call('POST', `${NRC}/kanaal`, { naam });
    expect(again.statusCode).toBe(400);
    expect(again.json().invalidParams).toEqual([expect.objectContaining({ name: 'naam', code: 'unique' })]);
    expect((await t.call('POST', `${NRC}/kanaal`, { naam: 'zaken' })).json().invalidParams[0].code).toBe('unique');

    const bad = async (body: unknown) =>
      (await t.call('POST', `${NRC}/kanaal`, body)).json().invalidParams?.map((p: { name: string; code: string }) => `${p.name}:${p.code}`);
    expect(await bad({})).toEqual(['naam:required']);
    expect(await bad({ naam: 'x'.repeat(51) })).toEqual(['naam:max_length']);
    expect(await bad({ naam: 'y', documentatieLink: 'geen url' })).toEqual(['documentatieLink:invalid']);
    expect(await bad({ naam: 'y', filters: 'soort' })).toEqual(['filters:not_a_list']);
    // a kanaal is never changed: PUT is not one of its methods
    const put = await t.call('PUT', created.json().url, { naam: 'z' });
    expect([put.statusCode, put.headers.allow]).toEqual([405, 'GET, HEAD']);
  });
});

describe('abonnementen', () => {
  it('creates after a test notification to the callback with its Authorization header; reads, lists, updates and deletes', async () => {
    const before = ok.requests.length;
    const created = await t.call('POST', `${NRC}/abonnement`, abonnementBody());
    expect(created.statusCode).toBe(201);
    const a = created.json();
    expect(a).toMatchObject({
      callbackUrl: ok.url,
      auth: 'Bearer secret-token',
      kanalen: [{ naam: 'zaken', filters: { bronorganisatie: '123456782' } }],
    });
    expect(ok.requests.length).toBe(before + 1);
    expect(ok.requests[before]).toMatchObject({ auth: 'Bearer secret-token', body: { kanaal: 'test', actie: 'create' } });
    expect(ok.requests[before]!.id).toMatch(/^[0-9a-f-]{36}$/);

    expect((await t.call('GET', a.url)).json()).toEqual(a);
    expect((await t.call('GET', `${NRC}/abonnement`)).json()).toEqual(expect.arrayContaining([a]));

    // A change of kanalen only: no new check. A new auth: checked again.
    const patched = await t.call('PATCH', a.url, { kanalen: [{ naam: 'documenten' }] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().kanalen).toEqual([{ naam: 'documenten', filters: {} }]);
    expect(patched.json().auth).toBe('Bearer secret-token'); // kept as it was (not sealed twice)
    expect(ok.requests.length).toBe(before + 1);
    // stored sealed: the header is in no byte of the stored abonnement
    const stored = await t.mongo.db.collection('abonnementen').findOne({ _id: a.url.split('/').pop() });
    expect(stored?.auth).toMatch(/^pii:/);
    expect(JSON.stringify(stored)).not.toContain('secret-token');
    const put = await t.call('PUT', a.url, abonnementBody({ auth: 'Bearer other' }));
    expect(put.statusCode).toBe(200);
    expect(ok.requests.length).toBe(before + 2);
    expect(ok.requests[before + 1]!.auth).toBe('Bearer other');

    expect((await t.call('DELETE', a.url)).statusCode).toBe(204);
    expect((await t.call('GET', a.url)).statusCode).toBe(404);
  });

  it('refuses a callback that does not accept the test notification', async () => {
    const refused = await t.call('POST', `${NRC}/abonnement`, abonnementBody({ callbackUrl: failing.url }));
    expect(refused.statusCode).toBe(400);
    expect(refused.json().invalidParams).toEqual([expect.objectContaining({ name: 'callbackUrl', code: 'invalid-callback-url' })]);
    const unreachable = await t.call('POST', `${NRC}/abonnement`, abonnementBody({ callbackUrl: 'http://127.0.0.1:9/callback' }));
    expect(unreachable.json().invalidParams[0].code).toBe('invalid-callback-url');
    const a = (await t.call('POST', `${NRC}/abonnement`, abonnementBody())).json();
    const patch = await t.call('PATCH', a.url, { callbackUrl: failing.url });
    expect(patch.json().invalidParams[0].code).toBe('invalid-callback-url');
    expect((await t.call('GET', a.url)).json().callbackUrl).toBe(ok.url);
  });

  it('needs kanalen that exist, filtered on their own kenmerken; refuses bad input', async () => {
    const bad = async (body: unknown) =>
      (await t.call('POST', `${NRC}/abonnement`, body)).json().invalidParams?.map((p: { name: string; code: string }) => `${p.name}:${p.code}`);
    expect(await bad(abonnementBody({ kanalen: [{ naam: 'zaken' }, { naam: 'bestaat-niet' }] }))).toEqual(['kanalen.1.naam:does_not_exist']);
    expect(await bad(abonnementBody({ kanalen: [{ naam: 'zaken', filters: { bsn: '1' } }] }))).toEqual(['kanalen.0.filters:kenmerken-inconsistent']);
    expect(await bad(abonnementBody({ kanalen: [{ naam: 'autorisaties', filters: { label: 'x' } }] }))).toEqual([
      'kanalen.0.filters:kenmerken-inconsistent',
    ]);
    expect(await bad(abonnementBody({ kanalen: [{ naam: 'zaken', filters: { zaaktype: '' } }] }))).toEqual(['kanalen.0.filters.zaaktype:blank']);
    expect(await bad(abonnementBody({ callbackUrl: 'geen url' }))).toEqual(['callbackUrl:invalid']);
    expect(await bad(abonnementBody({ callbackUrl: 'ftp://example.com/x' }))).toEqual(['callbackUrl:invalid']);
    expect(await bad({ callbackUrl: ok.url, kanalen: [] })).toEqual(['auth:required']);
    expect(await bad(abonnementBody({ kanalen: 'zaken' }))).toEqual(['kanalen:not_a_list']);
    expect((await t.call('POST', `${NRC}/abonnement`, '[1]')).statusCode).toBe(400);
    expect((await t.call('GET', `${NRC}/abonnement/${randomUUID()}`)).statusCode).toBe(404);
    expect((await t.call('GET', `${NRC}/abonnement/geen-uuid`)).statusCode).toBe(404);
  });

  it('leaves the callback unchecked with NRC_CALLBACK_CHECK=off', async () => {
    const other = await startApp({ NRC_CALLBACK_CHECK: 'off' });
    try {
      const res = await other.call('POST', `${NRC}/abonnement`, abonnementBody({ callbackUrl: failing.url }));
      expect(res.statusCode).toBe(201);
    } finally {
      await other.close();
    }
  });
});

describe('scopes', () => {
  it('lets consumers subscribe and read, publishers register kanalen and publish, and nobody without a token', async () => {
    const consumer = await scoped(['notificaties.consumeren']);
    const publisher = await scoped(['notificaties.publiceren']);
    expect((await t.call('POST', `${NRC}/abonnement`, abonnementBody(), { token: consumer })).statusCode).toBe(201);
    expect((await t.call('GET', `${NRC}/kanaal`, undefined, { token: consumer })).statusCode).toBe(200);
    expect((await t.call('POST', `${NRC}/kanaal`, { naam: `c-${randomUUID().slice(0, 8)}` }, { token: consumer })).statusCode).toBe(403);
    expect((await t.call('POST', `${NRC}/notificaties`, message(), { token: consumer })).statusCode).toBe(403);

    expect((await t.call('POST', `${NRC}/kanaal`, { naam: `p-${randomUUID().slice(0, 8)}` }, { token: publisher })).statusCode).toBe(201);
    expect((await t.call('POST', `${NRC}/notificaties`, message(), { token: publisher })).statusCode).toBe(201);
    expect((await t.call('GET', `${NRC}/abonnement`, undefined, { token: publisher })).statusCode).toBe(200);
    expect((await t.call('POST', `${NRC}/abonnement`, abonnementBody(), { token: publisher })).statusCode).toBe(403);

    expect((await t.call('GET', `${NRC}/kanaal`, undefined, { token: null })).statusCode).toBe(401);
  });
});

describe('notificaties from producers', () => {
  let consumer: Consumer | undefined;
  afterAll(async () => consumer?.disconnect());

  it("publishes on the kanaal's Kafka topic with a new event id, as the platform's own events; answers 201 with the message", async () => {
    const naam = `extern-${randomUUID().slice(0, 8)}`;
    expect((await t.call('POST', `${NRC}/kanaal`, { naam })).statusCode).toBe(201);
    const sent = [message({ resourceUrl: `https://example.com/zaken/${randomUUID()}` }), message({ kanaal: naam, kenmerken: {} })];
    for (const m of sent) {
      const res = await t.call('POST', `${NRC}/notificaties`, m);
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual(m);
    }
    // Published and gone from the outbox.
    expect(await eventually(async () => (await t.mongo.db.collection('nrc_berichten').countDocuments({})) === 0)).toBe(true);
    const seen: { topic: string; id: string; value: unknown }[] = [];
    consumer = createKafka(t.config.KAFKA_BROKERS, 'nrc-test').consumer({ groupId: `${t.topicPrefix}nrc-test` });
    await consumer.connect();
    await consumer.subscribe({ topics: [`${t.topicPrefix}zaken`, `${t.topicPrefix}${kanaalTopic(naam)}`], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, message: m }) =>
        void seen.push({ topic, id: String(m.headers?.[EVENT_ID_HEADER]), value: JSON.parse(m.value!.toString()) }),
    });
    const first = () => seen.find((s) => (s.value as { resourceUrl: string }).resourceUrl === sent[0]!.resourceUrl);
    expect(await eventually(async () => !!first() && seen.some((s) => s.topic.endsWith(naam)), 60_000)).toBe(true);
    expect(kanaalTopic(naam)).toBe(`nrc.${naam}`);
    expect(first()).toMatchObject({ topic: `${t.topicPrefix}zaken`, value: sent[0] });
    expect(seen.find((s) => s.topic === `${t.topicPrefix}nrc.${naam}`)).toMatchObject({ value: sent[1] });
    for (const s of seen) expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses an unknown kanaal and bad messages', async () => {
    const bad = async (body: unknown) =>
      (await t.call('POST', `${NRC}/notificaties`, body)).json().invalidParams?.map((p: { name: string; code: string }) => `${p.name}:${p.code}`);
    expect(await bad(message({ kanaal: 'bestaat-niet' }))).toEqual(['kanaal:does_not_exist']);
    expect(await bad(message({ aanmaakdatum: 'gisteren' }))).toEqual(['aanmaakdatum:invalid']);
    expect(await bad(message({ hoofdObject: 'geen url' }))).toEqual(['hoofdObject:invalid']);
    expect(await bad(message({ kenmerken: { a: 1 } }))).toEqual(['kenmerken.a:invalid']);
    const { actie: _a, resource: _r, ...missing } = message();
    expect((await bad(missing)).sort()).toEqual(['actie:required', 'resource:required']);
    expect(kanaalTopic('audit')).toBe('nrc.audit');
    expect(kanaalTopic('met spatie')).toMatch(/^nrc\.h\.[0-9a-f]{64}$/);
  });
});

describe('admin', () => {
  it('shows abonnementen with their delivery state (never the auth header), one with its undelivered counts, its deliveries', async () => {
    const a = (await t.call('POST', `${NRC}/abonnement`, abonnementBody())).json();
    const uuid = a.url.slice(a.url.lastIndexOf('/') + 1);
    const list = await t.call('GET', `${ADMIN}/abonnementen`);
    expect(list.statusCode).toBe(200);
    const mine = list.json().results.find((x: { uuid: string }) => x.uuid === uuid);
    expect(mine).toMatchObject({
      url: a.url,
      callbackUrl: ok.url,
      authSet: true,
      state: 'active',
      failingSince: null,
      consecutiveFailures: 0,
      lastAttempts: [],
    });
    expect(JSON.stringify(list.json())).not.toContain('secret-token');

    // A state as the notifier writes it.
    const failingSince = new Date('2026-01-01T00:00:00Z');
    await t.mongo.db.collection(NRC_STATUS).updateOne(
      { _id: uuid as never },
      {
        $set: {
          state: 'failing',
          failingSince,
          consecutiveFailures: 3,
          failedAttempts: 5,
          delivered: 2,
          lastFailureAt: failingSince,
          nextAttemptAt: failingSince,
          lastAttempts: [{ at: failingSince, status: 500, durationMs: 3, ok: false, error: 'HTTP 500', notificatie: 'n1', kanaal: 'zaken' }],
        },
      },
      { upsert: true },
    );
    await t.mongo.db.collection(NRC_DELIVERIES).insertOne({
      _id: `${uuid}:n1` as never,
      abonnement: uuid,
      notificatie: 'n1',
      kanaal: 'zaken',
      state: 'pending',
      createdAt: failingSince,
      nextAt: failingSince,
      tries: 3,
      attempts: [],
    });
    const detail = (await t.call('GET', `${ADMIN}/abonnementen/${uuid}`)).json();
    expect(detail).toMatchObject({
      state: 'failing',
      failingSince: failingSince.toISOString(),
      lockAt: '2026-01-08T00:00:00.000Z',
      consecutiveFailures: 3,
      failedAttempts: 5,
      delivered: 2,
      undelivered: { pending: 1, failed: 0 },
    });
    expect(detail.lastAttempts[0]).toMatchObject({ at: failingSince.toISOString(), status: 500, error: 'HTTP 500' });
    const deliveries = (await t.call('GET', `${ADMIN}/abonnementen/${uuid}/deliveries?state=pending`)).json();
    expect(deliveries).toMatchObject({
      count: 1,
      results: [{ id: `${uuid}:n1`, state: 'pending', tries: 3, notificatie: { id: 'n1', kanaal: 'zaken' } }],
    });
    expect((await t.call('GET', `${ADMIN}/abonnementen/${uuid}/deliveries?state=delivered`)).json().count).toBe(0);
    expect((await t.call('GET', `${ADMIN}/abonnementen/${uuid}/deliveries?state=kwijt`)).statusCode).toBe(400);
    expect((await t.call('GET', `${ADMIN}/abonnementen/${randomUUID()}`)).statusCode).toBe(404);
  });

  it('unlocks a locked abonnement (and leaves others as they are); queues resends, refused while locked and for bad periods', async () => {
    const a = (await t.call('POST', `${NRC}/abonnement`, abonnementBody())).json();
    const uuid = a.url.slice(a.url.lastIndexOf('/') + 1);
    const lockedAt = new Date('2026-01-08T00:00:00Z');
    await t.mongo.db
      .collection(NRC_STATUS)
      .updateOne(
        { _id: uuid as never },
        { $set: { state: 'locked', lockedAt, failingSince: new Date('2026-01-01T00:00:00Z'), consecutiveFailures: 40 } },
        { upsert: true },
      );
    expect((await t.call('GET', `${ADMIN}/abonnementen/${uuid}`)).json()).toMatchObject({ state: 'locked', lockedAt: lockedAt.toISOString() });
    const refused = await t.call('POST', `${ADMIN}/abonnementen/${uuid}/resend`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('abonnement-locked');

    const unlocked = await t.call('POST', `${ADMIN}/abonnementen/${uuid}/unlock`);
    expect(unlocked.statusCode).toBe(200);
    expect(unlocked.json()).toMatchObject({ state: 'active', lockedAt: null, failingSince: null, consecutiveFailures: 0, unlockedBy: 'test-admin' });
    const again = await t.call('POST', `${ADMIN}/abonnementen/${uuid}/unlock`);
    expect(again.json().unlockedAt).toBe(unlocked.json().unlockedAt);

    const bad = async (body: unknown) =>
      (await t.call('POST', `${ADMIN}/abonnementen/${uuid}/resend`, body))
        .json()
        .invalidParams?.map((p: { name: string; code: string }) => `${p.name}:${p.code}`);
    expect(await bad({ vanaf: 'gisteren' })).toEqual(['vanaf:invalid']);
    expect(await bad({ vanaf: '2026-02-01', tot: '2026-01-01' })).toEqual(['tot:invalid']);
    expect(await bad({ tot: '2026-01-01', extra: 1 })).toEqual(['nonFieldErrors:unknown_field']);
    const queued = await t.call('POST', `${ADMIN}/abonnementen/${uuid}/resend`, { vanaf: '2026-01-01', tot: '2026-01-02T12:00:00Z' });
    expect(queued.statusCode).toBe(202);
    expect(queued.json()).toMatchObject({
      abonnement: uuid,
      state: 'requested',
      vanaf: '2026-01-01T00:00:00.000Z',
      tot: '2026-01-02T12:00:00.000Z',
      requestedBy: 'test-admin',
      queued: null,
    });
    expect((await t.call('GET', `${ADMIN}/resends/${queued.json().id}`)).json()).toEqual(queued.json());
    expect((await t.call('GET', `${ADMIN}/abonnementen/${uuid}/resends`)).json()).toEqual([queued.json()]);
    expect(await t.mongo.db.collection(NRC_RESENDS).countDocuments({ abonnement: uuid })).toBe(1);
    expect((await t.call('GET', `${ADMIN}/resends/${randomUUID()}`)).statusCode).toBe(404);
    expect((await t.call('POST', `${ADMIN}/abonnementen/${randomUUID()}/unlock`)).statusCode).toBe(404);
  });

  it('tells the settings, and is only for callers that may change autorisaties', async () => {
    expect((await t.call('GET', `${ADMIN}/settings`)).json()).toEqual({
      lockAfterHours: 168,
      retentionDays: 14,
      backoffSeconds: [30, 60, 300, 900, 3600, 10800, 21600, 43200],
      timeoutMs: 10000,
      abonnementConcurrency: 8,
    });
    const consumer = await scoped(['notificaties.consumeren', 'notificaties.publiceren']);
    for (const [method, path] of [
      ['GET', '/abonnementen'],
      ['GET', '/settings'],
      ['POST', `/abonnementen/${randomUUID()}/unlock`],
    ]) {
      expect((await t.call(method!, `${ADMIN}${path}`, undefined, { token: consumer })).statusCode).toBe(403);
      expect((await t.call(method!, `${ADMIN}${path}`, undefined, { token: null })).statusCode).toBe(401);
    }
  });
});
