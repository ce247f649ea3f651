import { randomUUID } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import { CE_TENANT, createKafka, tenantTopic } from '@zgw/shared';
import { eventually, startApp, type TestApp } from './harness';
import { organisation } from './tenants.fixtures';

// With KAFKA_TENANT_TOPICS every notification is also published on a topic of its organisation alone
// (`tenant.<rsin>.<kanaal>`), for outside consumers that may read their own organisation's events only; the shared
// kanaal topic still carries every organisation's.
const A = '123456782';
const B = '111222333';
let t: TestApp;
const consumers: Consumer[] = [];
afterAll(async () => {
  for (const c of consumers) await c.disconnect();
  await t?.close();
});

/** Everything on a topic from its beginning: the resourceUrl and the ce_tenant header of each message. */
async function read(topic: string): Promise<{ url: string; tenant: string }[]> {
  const got: { url: string; tenant: string }[] = [];
  const consumer = createKafka(t.config.KAFKA_BROKERS, `tenant-topics-${randomUUID().slice(0, 8)}`).consumer({
    groupId: `${t.topicPrefix}${randomUUID()}`,
  });
  consumers.push(consumer);
  await consumer.connect();
  await consumer.subscribe({ topic: `${t.topicPrefix}${topic}`, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) =>
      void got.push({ url: JSON.parse(message.value!.toString()).resourceUrl, tenant: message.headers?.[CE_TENANT]?.toString() ?? '' }),
  });
  return got;
}

it("publishes each organisation's notifications on its own topic too, and only its own", async () => {
  t = await startApp({ KAFKA_TENANT_TOPICS: 'true', METRICS_PUBLIC: 'true' });
  const tokens: Record<string, string> = { [A]: await organisation(t, A), [B]: await organisation(t, B) };
  const sent: Record<string, string[]> = { [A]: [], [B]: [] };
  for (const rsin of [A, B, A, B, A]) {
    const resourceUrl = `https://example.com/zaken/${randomUUID()}`;
    const res = await t.call(
      'POST',
      '/notificaties/api/v1/notificaties',
      {
        kanaal: 'zaken',
        hoofdObject: resourceUrl,
        resource: 'zaak',
        resourceUrl,
        actie: 'create',
        aanmaakdatum: new Date().toISOString(),
        kenmerken: {},
      },
      { token: tokens[rsin] },
    );
    expect(res.statusCode).toBe(201);
    sent[rsin]!.push(resourceUrl);
  }
  // the relay makes an organisation's topic with its first notification
  const admin = createKafka(t.config.KAFKA_BROKERS, 'tenant-topics-admin').admin();
  await admin.connect();
  const wanted = [A, B].map((rsin) => `${t.topicPrefix}${tenantTopic(rsin, 'zaken')}`);
  const made = async () => {
    const topics = await admin.listTopics();
    return wanted.every((w) => topics.includes(w));
  };
  expect(await eventually(made, 60_000)).toBe(true);
  await admin.disconnect();
  const [ofA, ofB, shared] = await Promise.all([read(tenantTopic(A, 'zaken')), read(tenantTopic(B, 'zaken')), read('zaken')]);
  expect(await eventually(async () => ofA.length >= 3 && ofB.length >= 2 && shared.length >= 5, 60_000)).toBe(true);
  await new Promise((r) => setTimeout(r, 500));
  expect(ofA).toEqual(sent[A]!.map((url) => ({ url, tenant: A })));
  expect(ofB).toEqual(sent[B]!.map((url) => ({ url, tenant: B })));
  expect(shared.map((m) => m.url).sort()).toEqual([...sent[A]!, ...sent[B]!].sort());
}, 120_000);

it("serves the organisations' topics in the AsyncAPI document only when it publishes them", async () => {
  const doc = (await t.call('GET', '/asyncapi.json')).json();
  expect(doc.channels['tenant-kanaal'].address).toBe(`${t.topicPrefix}tenant.{tenant}.{kanaal}`);
  const plain = await startApp({ METRICS_PUBLIC: 'true' }, { shareWith: t });
  try {
    expect((await plain.call('GET', '/asyncapi.json')).json().channels['tenant-kanaal']).toBeUndefined();
  } finally {
    await plain.close();
  }
});
