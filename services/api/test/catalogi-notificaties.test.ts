import { createKafka, type Notificatie } from '@zgw/shared';
import type { Consumer } from 'kafkajs';
import { startApp, type TestApp } from './harness';
import { besluittypeBody, catalogus, create, iotBody, publish, zaaktypeBody } from './catalogi.fixtures';

/** Writes of zaaktypen, besluittypen and informatieobjecttypen reach their kanaal with the catalogus kenmerk. */
let t: TestApp;
let consumer: Consumer;
const seen: Notificatie[] = [];

async function waitFor(cond: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting for notifications');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await consumer?.disconnect();
  await t.close();
});

jest.setTimeout(120_000);

it('publishes create, update, publish and destroy notifications per kanaal with kenmerk catalogus', async () => {
  const cat = await catalogus(t, 'NRC');
  const zt = await create(t, 'zaaktypen', zaaktypeBody(cat));
  const bt = await create(t, 'besluittypen', besluittypeBody(cat));
  const iot = await create(t, 'informatieobjecttypen', iotBody(cat));
  await publish(t, iot.url);
  expect((await t.call('PATCH', zt.url, { toelichting: 'x' })).statusCode).toBe(200);
  expect((await t.call('DELETE', bt.url)).statusCode).toBe(204);
  // Parts of a zaaktype have no kanaal of their own.
  await create(t, 'roltypen', { zaaktype: zt.url, omschrijving: 'r', omschrijvingGeneriek: 'adviseur' });

  // Subscribe once the relay has published everything, so the kanaal topics exist.
  const pending = async () => {
    let n = 0;
    for (const coll of ['zaaktypen', 'besluittypen', 'informatieobjecttypen'])
      n += await t.mongo.db.collection(coll).countDocuments({ _pending: true });
    return n + (await t.mongo.db.collection('outbox').countDocuments({}));
  };
  await waitFor(async () => (await pending()) === 0);
  const kafka = createKafka(t.config.KAFKA_BROKERS, 'catalogi-notificaties');
  consumer = kafka.consumer({ groupId: `${t.topicPrefix}catalogi` });
  await consumer.connect();
  for (const kanaal of ['zaaktypen', 'besluittypen', 'informatieobjecttypen']) {
    await consumer.subscribe({ topic: `${t.topicPrefix}${kanaal}`, fromBeginning: true });
  }
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString()) as Notificatie) });
  await waitFor(() => seen.length >= 6);

  const summary = seen.map((n) => `${n.kanaal} ${n.resource} ${n.actie} ${n.resourceUrl}`).sort();
  expect(summary).toEqual(
    [
      `besluittypen besluittype create ${bt.url}`,
      `besluittypen besluittype destroy ${bt.url}`,
      `informatieobjecttypen informatieobjecttype create ${iot.url}`,
      `informatieobjecttypen informatieobjecttype update ${iot.url}`,
      `zaaktypen zaaktype create ${zt.url}`,
      `zaaktypen zaaktype partial_update ${zt.url}`,
    ].sort(),
  );
  for (const n of seen) {
    expect(n.kenmerken).toEqual({ catalogus: cat });
    expect(n.hoofdObject).toBe(n.resourceUrl);
  }
});
