import { AUDIT_READS_TOPIC, createKafka, ensureTopics, topicName, type Notificatie, type ReadEntry } from '@zgw/shared';
import type { Consumer } from 'kafkajs';
import { createEio, eioBody } from './documenten.fixtures';
import { eventually, startApp, type TestApp } from './harness';
import { BESLUITEN, BIO, besluitBody, besluittypeMetDocumenttype, createB } from './besluiten.fixtures';

/**
 * Besluit writes reach kanaal besluiten with kenmerken verantwoordelijkeOrganisatie and besluittype; as in the
 * standard, writes of besluitinformatieobjecten are not notified. Reads leave read entries (bron BRC).
 */
let t: TestApp;
let consumer: Consumer | undefined;
let readsConsumer: Consumer | undefined;
const seen: Notificatie[] = [];

beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await consumer?.disconnect();
  await readsConsumer?.disconnect();
  await t.close();
});

jest.setTimeout(120_000);

it('notifies create, update, partial_update and destroy of besluiten, not their besluitinformatieobjecten', async () => {
  const s = await besluittypeMetDocumenttype(t);
  const b = await createB(t, BESLUITEN, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '123456782' }));
  expect((await t.call('PUT', b.url, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '123456782', toelichting: 'x' }))).statusCode).toBe(
    200,
  );
  expect((await t.call('PATCH', b.url, { toelichting: 'y' })).statusCode).toBe(200);
  const eio = await createEio(t, eioBody(s.informatieobjecttype));
  const bio = await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });
  expect((await t.call('DELETE', bio.url)).statusCode).toBe(204);
  await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });
  expect((await t.call('DELETE', b.url)).statusCode).toBe(204);

  // Subscribe once the relay has published everything, so the kanaal topic exists.
  expect(await eventually(async () => (await t.mongo.db.collection('outbox').countDocuments({})) === 0, 60_000)).toBe(true);
  consumer = createKafka(t.config.KAFKA_BROKERS, 'besluiten-notificaties').consumer({ groupId: `${t.topicPrefix}besluiten` });
  await consumer.connect();
  await consumer.subscribe({ topic: `${t.topicPrefix}besluiten`, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString()) as Notificatie) });
  // Messages of one besluit share its key, so they arrive in write order: once the destroy is in, everything is.
  expect(await eventually(async () => seen.some((n) => n.actie === 'destroy'), 60_000)).toBe(true);

  expect(seen.map((n) => `${n.resource} ${n.actie}`)).toEqual(['besluit create', 'besluit update', 'besluit partial_update', 'besluit destroy']);
  for (const n of seen) {
    expect(n).toMatchObject({
      kanaal: 'besluiten',
      hoofdObject: b.url,
      resourceUrl: b.url,
      kenmerken: { verantwoordelijkeOrganisatie: '123456782', besluittype: s.besluittype },
    });
  }
});

it('records reads of besluiten and besluitinformatieobjecten under the besluit (bron BRC)', async () => {
  const s = await besluittypeMetDocumenttype(t);
  const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
  const eio = await createEio(t, eioBody(s.informatieobjecttype));
  const bio = await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });
  const kafka = createKafka(t.config.KAFKA_BROKERS, 'besluiten-reads');
  await ensureTopics(kafka, t.topicPrefix, [AUDIT_READS_TOPIC]);
  const received: ReadEntry[] = [];
  readsConsumer = kafka.consumer({ groupId: `${t.topicPrefix}besluiten-reads` });
  await readsConsumer.connect();
  await readsConsumer.subscribe({ topic: topicName(t.topicPrefix, AUDIT_READS_TOPIC), fromBeginning: true });
  await readsConsumer.run({ eachMessage: async ({ message }) => void received.push(JSON.parse(message.value!.toString()) as ReadEntry) });

  for (const url of [b.url, `${BESLUITEN}?identificatie=${b.identificatie}`, bio.url, `${BIO}?besluit=${encodeURIComponent(b.url)}`]) {
    expect((await t.call('GET', url)).statusCode).toBe(200);
  }
  const ours = () => received.filter((e) => e.bron === 'BRC');
  expect(await eventually(async () => ours().length >= 4, 60_000)).toBe(true);
  expect(ours().map((e) => [e.actie, e.resource, e.resourceUrl, e.hoofdObject, e.aantal])).toEqual([
    ['retrieve', 'besluit', b.url, b.url, undefined],
    ['list', 'besluit', undefined, undefined, 1],
    ['retrieve', 'besluitinformatieobject', bio.url, b.url, undefined],
    ['list', 'besluitinformatieobject', undefined, b.url, 1],
  ]);
});
