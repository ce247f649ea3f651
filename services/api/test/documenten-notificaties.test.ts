import { createKafka, type Notificatie } from '@zgw/shared';
import type { Consumer } from 'kafkajs';
import { DRC, createEio, eioBody, informatieobjecttype, lock } from './documenten.fixtures';
import { eventually, startApp, type TestApp } from './harness';

/** Document and gebruiksrechten writes reach kanaal documenten with the document's kenmerken. */
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

it('notifies create, update and destroy of documents and gebruiksrechten with bronorganisatie, informatieobjecttype and vertrouwelijkheidaanduiding', async () => {
  const iot = await informatieobjecttype(t);
  const eio = await createEio(t, eioBody(iot, { bronorganisatie: '123456782', vertrouwelijkheidaanduiding: 'intern' }));
  const l = await lock(t, eio.url);
  expect((await t.call('PATCH', eio.url, { titel: 'Nieuw', lock: l })).statusCode).toBe(200);
  const gr = (
    await t.call('POST', `${DRC}/gebruiksrechten`, { informatieobject: eio.url, startdatum: '2024-01-01T00:00:00Z', omschrijvingVoorwaarden: 'x' })
  ).json();
  expect((await t.call('DELETE', gr.url)).statusCode).toBe(204);
  expect((await t.call('DELETE', eio.url)).statusCode).toBe(204);

  // Subscribe once the relay has published everything, so the kanaal topic exists.
  expect(await eventually(async () => (await t.mongo.db.collection('outbox').countDocuments({})) === 0, 60_000)).toBe(true);
  consumer = createKafka(t.config.KAFKA_BROKERS, 'documenten-notificaties').consumer({ groupId: `${t.topicPrefix}documenten` });
  await consumer.connect();
  await consumer.subscribe({ topic: `${t.topicPrefix}documenten`, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString()) as Notificatie) });
  expect(await eventually(async () => seen.length >= 5, 60_000)).toBe(true);

  // In order per object; the relay does not order events of different objects.
  expect(
    seen.map((n) => `${n.resource} ${n.actie} ${n.resourceUrl === eio.url ? 'eio' : n.resourceUrl === gr.url ? 'gr' : n.resourceUrl}`).sort(),
  ).toEqual([
    'enkelvoudiginformatieobject create eio',
    'enkelvoudiginformatieobject destroy eio',
    'enkelvoudiginformatieobject partial_update eio',
    'gebruiksrechten create gr',
    'gebruiksrechten destroy gr',
  ]);
  for (const n of seen) {
    expect(n).toMatchObject({
      kanaal: 'documenten',
      hoofdObject: eio.url,
      kenmerken: { bronorganisatie: '123456782', informatieobjecttype: iot, vertrouwelijkheidaanduiding: 'intern' },
    });
  }
});
