import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Consumer } from 'kafkajs';
import { MongoServerError } from 'mongodb';
import { createKafka } from '@zgw/shared';
import { batcherOf } from '../src/common/storage/write-batch';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, startApp, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

/**
 * A BSN reaches no log line, however it came in: in a query string (plain or percent-encoded), in a `_zoek` body, in
 * a rol's betrokkeneIdentificatie, in input that a validation error echoes, in a path, in the message of a database
 * error behind a 5xx. The API runs with the product's logger at its most verbose level, writing into memory. Nor
 * does a BSN travel in the notifications: their kenmerken are bronorganisatie, zaaktype and vertrouwelijkheidaanduiding.
 */
const BSN = '111222333';
const OTHER_BSN = '999888777';
const percent = (digits: string) => [...digits].map((d) => `%3${d}`).join('');
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
let consumer: Consumer | undefined;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url, LOG_LEVEL: 'trace' }, { logTo: sink });
  s = await zaaktypeMetOnderdelen(t, sl);
});
afterAll(async () => {
  await consumer?.disconnect();
  await t.close();
  await sl.close();
});

/** A log line with its percent-encoding undone, as someone reading it would. */
function decoded(line: string): string {
  try {
    return decodeURIComponent(line);
  } catch {
    return line.replace(/%3(\d)/g, '$1');
  }
}

it('no log line carries a BSN, whichever way the requests carried it', async () => {
  const call = (method: string, url: string, body?: unknown, opts: { token?: string | null } = {}) =>
    t.call(method, url, body, { ...opts, headers: CRS });
  const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
  const persoon = (inpBsn: string) => ({ inpBsn, geslachtsnaam: 'Jansen', voornamen: 'Jan' });
  const rolBody = (inpBsn: string) => ({
    zaak: zaak.url,
    roltype: s.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 't',
    betrokkeneIdentificatie: persoon(inpBsn),
  });
  const rol = await createZ(t, 'rollen', rolBody(BSN));
  const answered: number[] = [];
  const send = async (method: string, url: string, body?: unknown, opts: { token?: string | null } = {}) => {
    const res = await call(method, url, body, opts);
    answered.push(res.statusCode);
    return res;
  };

  // Reads that show the BSN, and filters that carry it in the query string.
  await send('GET', rol.url);
  await send('GET', `${zaak.url}?expand=rollen`);
  const filter = 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn';
  const found = await send('GET', `${ZRC}/zaken?${filter}=${BSN}`);
  expect(found.json().results.map((r: { url: string }) => r.url)).toEqual([zaak.url]);
  await send('GET', `${ZRC}/zaken?${filter}=${percent(BSN)}&ordering=-startdatum`);
  await send('GET', `${ZRC}/zaken?${filter}=111%20222%20333`);
  await send('GET', `${ZRC}/zaken?bsn=${OTHER_BSN}&identificatie=${OTHER_BSN}`);
  await send('GET', `${ZRC}/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=${BSN}`);
  await send('GET', `${ZRC}/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=1112%3223${percent('33')}`);
  // _zoek: the BSN in the body, and (wrongly) in its query string.
  const zoek = await send('POST', `${ZRC}/zaken/_zoek`, { [filter]: BSN, expand: 'rollen' });
  expect(zoek.json().count).toBe(1);
  await send('POST', `${ZRC}/zaken/_zoek?${filter}=${OTHER_BSN}`, { [filter]: OTHER_BSN });
  // Errors: validation errors that echo the input, bad JSON around a BSN, unknown paths, no token.
  await send('POST', `${ZRC}/rollen`, { ...rolBody(OTHER_BSN), betrokkeneType: OTHER_BSN });
  await send('POST', `${ZRC}/rollen`, { ...rolBody(`${OTHER_BSN}0`) });
  await send('GET', `${ZRC}/zaken?rol__betrokkeneType=${OTHER_BSN}&${filter}=${OTHER_BSN}`);
  await send('POST', `${ZRC}/zaken/_zoek`, `{"${filter}": "${OTHER_BSN}",`);
  await send('GET', `${ZRC}/zaken/${OTHER_BSN}`);
  await send('GET', `${ZRC}/personen/${OTHER_BSN}?bsn=${OTHER_BSN}`);
  await send('GET', `${ZRC}/zaken?${filter}=${OTHER_BSN}`, undefined, { token: null });
  // Database errors that quote the document: a duplicate key (a 400 on the field, the value not echoed) and another
  // one (a 5xx, logged with its error).
  // (a rol is inserted through its collection's write batcher: its round trip is where the store answers)
  const rollen = t.deps.components.zaken!.rollen.store;
  const batcher = batcherOf(rollen.raw.db, rollen.name) as unknown as Record<string, unknown>;
  const add = batcher.add;
  const errors = [
    new MongoServerError({
      message: `E11000 duplicate key error collection: rollen dup key: { betrokkeneIdentificatie.inpBsn: "${OTHER_BSN}" }`,
      code: 11000,
    }),
    new MongoServerError({
      message: `BSONObjectTooLarge: object to insert too large { betrokkeneIdentificatie: { inpBsn: "${OTHER_BSN}" } }`,
      code: 10334,
    }),
  ];
  try {
    for (const error of errors) {
      batcher.add = () => Promise.reject(error);
      await send('POST', `${ZRC}/rollen`, rolBody(OTHER_BSN));
    }
  } finally {
    batcher.add = add;
  }
  expect(answered).toEqual(expect.arrayContaining([200, 400, 401, 404, 500]));

  // The requests were logged (their URLs included), the 5xx with its error; no line holds either BSN.
  expect(lines.filter((l) => l.includes('inpBsn=')).length).toBeGreaterThanOrEqual(6);
  expect(lines.some((l) => l.includes('"level":"error"') && l.includes('BSONObjectTooLarge'))).toBe(true);
  const leaks = lines.filter((l) => [BSN, OTHER_BSN].some((bsn) => l.includes(bsn) || decoded(l).includes(bsn) || decoded(decoded(l)).includes(bsn)));
  expect(leaks).toEqual([]);
  // A filter on a BSN parameter shows that it was there, not what it was.
  expect(lines.find((l) => l.includes(`/zaken/api/v1/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=`))).toMatch(/inpBsn=\*+"/);
});

it('notifications carry no BSN: the kenmerken of a rol are bronorganisatie, zaaktype and vertrouwelijkheidaanduiding', async () => {
  const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
  const rol = await createZ(t, 'rollen', {
    zaak: zaak.url,
    roltype: s.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 't',
    betrokkeneIdentificatie: { inpBsn: BSN },
  });
  const messages: { topic: string; value: string; headers: string }[] = [];
  consumer = createKafka(t.config.KAFKA_BROKERS, `bsn-${randomUUID().slice(0, 8)}`).consumer({ groupId: `${t.topicPrefix}bsn` });
  await consumer.connect();
  // The kanaal topic, which the notifier delivers to outside subscribers. (The audit topic carries the written object
  // itself in `wijzigingen`, as the standard's audit trail has it: data for auditors, not a log line or a notification.)
  await consumer.subscribe({ topic: `${t.topicPrefix}zaken`, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, message }) =>
      void messages.push({ topic, value: message.value?.toString() ?? '', headers: JSON.stringify(message.headers ?? {}) }),
  });
  expect(await eventually(async () => messages.some((m) => m.value.includes(rol.url)), 60_000)).toBe(true);
  const created = messages.map((m) => JSON.parse(m.value)).find((n) => n.resourceUrl === rol.url && n.actie === 'create');
  expect(created).toMatchObject({ kanaal: 'zaken', resource: 'rol', hoofdObject: zaak.url });
  expect(Object.keys(created.kenmerken).sort()).toEqual(['bronorganisatie', 'vertrouwelijkheidaanduiding', 'zaaktype']);
  expect(messages.filter((m) => m.value.includes(BSN) || m.headers.includes(BSN))).toEqual([]);
}, 120_000);
