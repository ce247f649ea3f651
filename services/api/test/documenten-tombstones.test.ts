import { platformDb } from '@zgw/shared';
import { startApp, type TestApp } from './harness';
import { createEio, eioBody, informatieobjecttype } from './documenten.fixtures';

// A deleted document stays as a tombstone (its outbox alone) until the relay has published the delete; while Kafka is
// down that lasts. A tombstone holds no identificatie, so the unique index of (bronorganisatie, identificatie) must
// leave it out, as the zaken's and besluiten's do: else a second delete meets the first tombstone (400 `unique`).
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t?.close());

it('deletes one document after another while the relay has not published the deletes yet', async () => {
  const iot = await informatieobjecttype(t);
  const docs = [];
  for (let i = 0; i < 3; i++) docs.push(await createEio(t, eioBody(iot, { identificatie: `TOMBSTONE-${i}` })));
  await t.relay.stop(); // Kafka "down": the tombstones stay
  for (const d of docs) {
    const res = await t.call('DELETE', d.url);
    expect([res.statusCode, res.body]).toEqual([204, '']);
  }
  for (const d of docs) expect((await t.call('GET', d.url)).statusCode).toBe(404);
  // and the identificaties are free again
  expect((await t.call('POST', '/documenten/api/v1/enkelvoudiginformatieobjecten', eioBody(iot, { identificatie: 'TOMBSTONE-0' }))).statusCode).toBe(
    201,
  );
});

it('replaces at start the unique index an earlier version made without leaving tombstones out', async () => {
  const earlier = await startApp(); // a database of its own, without tombstones (the old index could not be built)
  const coll = platformDb(earlier.mongo.db).collection('enkelvoudiginformatieobjecten');
  const key = { _tenant: 1, bronorganisatie: 1, identificatie: 1 };
  const named = async () => (await coll.indexes()).find((ix) => JSON.stringify(ix.key) === JSON.stringify(key));
  await coll.dropIndex((await named())!.name!);
  await coll.createIndex(key, { unique: true }); // as an earlier version made it
  expect((await named())?.partialFilterExpression).toBeUndefined();
  const again = await startApp({}, { shareWith: earlier });
  try {
    expect((await named())?.partialFilterExpression).toEqual({ bronorganisatie: { $exists: true }, identificatie: { $exists: true } });
    expect((await named())?.unique).toBe(true);
  } finally {
    await again.close();
    await earlier.close();
  }
});
