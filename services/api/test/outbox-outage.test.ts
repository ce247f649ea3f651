import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createKafka, EVENT_ID_HEADER, type Notificatie } from '@zgw/shared';
import type { Consumer } from 'kafkajs';
import { startApp, type TestApp } from './harness';

// This test stops and restarts the broker, so it needs the broker that the project's engines script manages (npm test
// without KAFKA_BROKERS); anywhere else it fails saying so.
const managed = process.env.ZGW_ENGINES_MANAGED === '1';
const engines = (...args: string[]) => execFileSync('bash', [join(__dirname, '..', '..', '..', 'scripts', 'engines.sh'), ...args], { stdio: 'pipe' });
const AC = '/autorisaties/api/v1';

describe('outbox: events survive a Kafka outage', () => {
  beforeAll(() => {
    if (!managed)
      throw new Error('this suite stops and restarts Kafka through scripts/engines.sh: run it by npm test without KAFKA_BROKERS and MONGODB_URL');
  });
  let t: TestApp;
  let consumer: Consumer;
  const seen = new Map<string, Notificatie>();
  let deliveries = 0;

  beforeAll(async () => {
    t = await startApp();
    // One write while Kafka is up, so topics exist and the relay is connected.
    expect((await t.call('POST', `${AC}/applicaties`, { clientIds: ['warmup'], label: 'W', heeftAlleAutorisaties: true })).statusCode).toBe(201);
    await waitFor(async () => (await t.mongo.db.collection('applicaties').countDocuments({ _pending: true })) === 0, 30_000);
    const kafka = createKafka(t.config.KAFKA_BROKERS, 'outage-test');
    consumer = kafka.consumer({ groupId: `${t.topicPrefix}outage`, retry: { retries: 30, initialRetryTime: 300, maxRetryTime: 3000 } });
    await consumer.connect();
    await consumer.subscribe({ topic: `${t.topicPrefix}autorisaties`, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        deliveries++;
        const id = message.headers?.[EVENT_ID_HEADER]?.toString();
        if (id) seen.set(id, JSON.parse(message.value!.toString()) as Notificatie);
      },
    });
    await waitFor(() => seen.size >= 1, 30_000);
  });

  afterAll(async () => {
    engines('start', 'kafka');
    await consumer?.disconnect();
    await t?.close();
  });

  it('keeps answering while the broker is down and delivers every event exactly once after it returns', async () => {
    engines('stop', 'kafka');
    const writes: { actie: string; url: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.call('POST', `${AC}/applicaties`, { clientIds: [`outage-${i}`], label: `O${i}`, heeftAlleAutorisaties: true });
      expect(res.statusCode).toBe(201);
      writes.push({ actie: 'create', url: res.json().url });
    }
    expect((await t.call('PATCH', writes[0]!.url, { label: 'changed' })).statusCode).toBe(200);
    writes.push({ actie: 'partial_update', url: writes[0]!.url });
    expect((await t.call('DELETE', writes[1]!.url)).statusCode).toBe(204);
    writes.push({ actie: 'destroy', url: writes[1]!.url });
    expect((await t.call('GET', `${AC}/applicaties?clientIds=outage-2`)).json().count).toBe(1);
    // Events wait in MongoDB (the deleted one as a tombstone).
    const waiting = await t.mongo.db.collection('applicaties').find({ _pending: true }).toArray();
    expect(waiting.reduce((n, d) => n + (d._outbox as unknown[]).length, 0)).toBe(writes.length);

    engines('start', 'kafka');
    await waitFor(() => seen.size >= 1 + writes.length, 90_000);
    await waitFor(async () => (await t.mongo.db.collection('applicaties').countDocuments({ _pending: true })) === 0, 30_000);

    const got = [...seen.values()].filter((n) => n.resourceUrl !== undefined).map((n) => `${n.actie} ${n.resourceUrl}`);
    for (const w of writes) expect(got.filter((g) => g === `${w.actie} ${w.url}`)).toHaveLength(1);
    expect(seen.size).toBe(1 + writes.length);
    expect(deliveries).toBeGreaterThanOrEqual(seen.size);
    const sample = [...seen.values()].find((n) => n.actie === 'destroy')!;
    expect(sample).toMatchObject({ kanaal: 'autorisaties', resource: 'applicatie', hoofdObject: writes[1]!.url, kenmerken: {} });
    expect(Date.parse(sample.aanmaakdatum)).not.toBeNaN();
    // The tombstone is gone once its event is out.
    expect(await t.mongo.db.collection('applicaties').countDocuments({ _tombstone: true })).toBe(0);
  });
});

async function waitFor(cond: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}
