import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Consumer, KafkaMessage } from 'kafkajs';
import { parse } from 'yaml';
import { AUDIT_READS_TOPIC, AUDIT_TOPIC, createKafka, ensureTopics, KANALEN, topicName } from '@zgw/shared';
import { CACHE_TOPIC } from '../src/common/storage/cache';
import { eventually, startApp, type TestApp } from './harness';

// The Kafka topics as a contract: the AsyncAPI document, and the CloudEvents headers of what goes out.
const OIN = '00000001234567890000';
let t: TestApp;
let consumer: Consumer;
const received: { topic: string; message: KafkaMessage }[] = [];

beforeAll(async () => {
  t = await startApp({ ZGW_OIN: OIN });
  const kafka = createKafka(t.config.KAFKA_BROKERS, 'asyncapi-test');
  await ensureTopics(kafka, t.topicPrefix, ['autorisaties']);
  consumer = kafka.consumer({ groupId: `${t.topicPrefix}asyncapi-test` });
  await consumer.connect();
  await consumer.subscribe({ topics: ['autorisaties'].map((x) => topicName(t.topicPrefix, x)), fromBeginning: true });
  await consumer.run({ eachMessage: async ({ topic, message }) => void received.push({ topic: topic.slice(t.topicPrefix.length), message }) });
});
afterAll(async () => {
  await consumer?.disconnect();
  await t?.close();
});

const document = async () => {
  const res = await t.call('GET', '/asyncapi.json', undefined, { token: null });
  expect(res.statusCode).toBe(200);
  return res.json() as {
    asyncapi: string;
    channels: Record<string, any>;
    operations: Record<string, any>;
    components: { messages: Record<string, any>; schemas: Record<string, any> };
  };
};

test('the AsyncAPI 3.0 document names every topic with its address, message, CloudEvents headers and payload schema; YAML says the same', async () => {
  const doc = await document();
  expect(doc.asyncapi).toBe('3.0.0');
  expect(Object.keys(doc.channels).sort()).toEqual([...KANALEN, 'nrc-kanaal', AUDIT_TOPIC, AUDIT_READS_TOPIC, CACHE_TOPIC].sort());
  expect(doc.channels['nrc-kanaal'].address).toBe(`${t.topicPrefix}nrc.{kanaal}`);
  expect(doc.channels.zaken.address).toBe(`${t.topicPrefix}zaken`);
  for (const [name, channel] of Object.entries(doc.channels)) {
    const ref = Object.values(channel.messages as Record<string, { $ref: string }>)[0]!.$ref;
    const message = doc.components.messages[ref.split('/').pop()!];
    expect(message.headers.required).toEqual(
      expect.arrayContaining(['event-id', 'ce_specversion', 'ce_id', 'ce_source', 'ce_type', 'ce_time', 'content-type']),
    );
    expect(doc.components.schemas[message.payload.$ref.split('/').pop()]).toBeDefined();
    expect(doc.operations[`publish-${name}`]).toMatchObject({ action: 'send', channel: { $ref: `#/channels/${name}` } });
  }
  expect(doc.components.schemas.Notificatie.required).toEqual([
    'kanaal',
    'hoofdObject',
    'resource',
    'resourceUrl',
    'actie',
    'aanmaakdatum',
    'kenmerken',
  ]);
  expect(doc.components.schemas.AuditEntry.properties.bron.enum).toContain('ZRC');
  const yaml = await t.call('GET', '/asyncapi.yaml', undefined, { token: null });
  expect(parse(yaml.body)).toEqual(doc);
  const page = await t.call('GET', '/api-referentie/asyncapi', undefined, { token: null });
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain(`<code>${t.topicPrefix}audit-reads</code>`);
  expect(page.body).toContain('ce_source');
  expect((await t.call('GET', '/api-referentie', undefined, { token: null })).body).toContain('/api-referentie/asyncapi');
});

test("a write's messages carry CloudEvents headers (source by OIN, type, subject, time, id = event-id) and validate against the document", async () => {
  const applicatie = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [`asyncapi-${Date.now()}`],
    label: 'x',
    heeftAlleAutorisaties: true,
  });
  expect(applicatie.statusCode).toBe(201);
  const url = applicatie.json().url as string;
  expect(await eventually(async () => received.some((r) => r.topic === 'autorisaties' && r.message.value!.toString().includes(url)))).toBe(true);

  const doc = await document();
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  ajv.addSchema({ components: doc.components }, 'asyncapi');
  for (const { topic, message } of received) {
    const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
    const m = doc.components.messages[`${topic}.Notificatie`];
    const payload = JSON.parse(message.value!.toString());
    expect([topic, headers.ce_type, ajv.validate(m.headers, headers), ajv.errorsText()]).toEqual([topic, headers.ce_type, true, 'No errors']);
    expect([topic, ajv.validate({ $ref: `asyncapi${m.payload.$ref}` }, payload), ajv.errorsText()]).toEqual([topic, true, 'No errors']);
    expect(headers).toMatchObject({
      ce_specversion: '1.0',
      ce_id: headers['event-id'],
      ce_source: `urn:nld:oin:${OIN}:systeem:zgw`,
      'content-type': 'application/json',
    });
    expect(headers.ce_time).toBe(new Date(payload.aanmaakdatum).toISOString());
    expect(headers.ce_subject).toBe(payload.resourceUrl);
  }
  const notificatie = received.find((r) => r.topic === 'autorisaties' && JSON.parse(r.message.value!.toString()).resourceUrl === url)!;
  expect(String(notificatie.message.headers!.ce_type)).toBe('nl.zgw.autorisaties.applicatie.create');
  expect(String(notificatie.message.headers!.ce_subject)).toBe(url);
});
