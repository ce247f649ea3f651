import { createKafka, type Notificatie } from '@zgw/shared';
import type { Consumer } from 'kafkajs';
import { createEio, eioBody } from './documenten.fixtures';
import { eventually, startApp, type TestApp } from './harness';
import { BESLUITEN, BIO, besluitBody, besluittypeMetDocumenttype, createB } from './besluiten.fixtures';

/**
 * Besluit writes reach kanaal besluiten with kenmerken verantwoordelijkeOrganisatie and besluittype; as in the
 * standard, writes of besluitinformatieobjecten are not notified.
 */
let t: TestApp;
let consumer: Consumer | undefined;
const seen: Notificatie[] = [];

beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await consumer?.disconnect();
  await t.close();
});

jest.setTimeout(120_000);

it('notifies create, update, partial_update and destroy of besluiten, not their besluitinformatieobjecten', async () => {
  const s = await besluittypeMetDocumenttype(t);
  const b = await createB(t, BESLUITEN, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '123456782' }));
  expect((await t.call('PUT', b.url, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '123456782', toelichting: 'x' }))).statusCode).toBe(200);
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
    expect(n).toMatchObject({ kanaal: 'besluiten', hoofdObject: b.url, resourceUrl: b.url, kenmerken: { verantwoordelijkeOrganisatie: '123456782', besluittype: s.besluittype } });
  }
});
