import type { ChildProcess } from 'node:child_process';
import type { Consumer } from 'kafkajs';
import { createKafka, zijAanZij, type Notificatie } from '@zgw/shared';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { BESLUITEN, BIO, besluitBody, createB } from './besluiten.fixtures';
import { EIO, createEio, eioBody } from './documenten.fixtures';
import { eventually, token, type TestApp } from './harness';
import { LogLines, startListeningApp, startWorker, stopWorker } from './overdrachten.fixtures';
import { CRS, ZRC, createZ } from './zaken.fixtures';
import { INSTELLINGEN, LIJSTEN, opzet, sluit, zaak, type Opzet } from './vernietigingslijsten.fixtures';
import { ensureAllRights } from '../src/bootstrap';

// A destruction list of 1,000 zaken (with documents, besluiten, deelzaken) made from a selection, reviewed in two
// steps (the first sends it back once with zaken excluded), carried out with the transfer worker killed (SIGKILL)
// half-way: every approved zaak and its parts gone, every excluded zaak and every document still used elsewhere
// kept, the verklaring stored and readable, each delete notified exactly once.

const logs = new LogLines();
let sl: Referentielijsten;
let t: TestApp;
let s: Opzet;
let worker: ChildProcess | undefined;
let consumer: Consumer | undefined;

const ZAKEN = 1000;
const HOOFDZAKEN = 100; // each with one deelzaak: 200 of the 1,000
const MET_DOCUMENT = 200;
const MET_BESLUIT = 50;
const GEDEELD = 20;
const UITGEZONDERD = 10;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url, TRANSFER_HEARTBEAT_SECONDS: '3' }, logs);
  s = await opzet(t, sl);
  await t.client('recordmanager', 'recordmanager-secret');
  await ensureAllRights(t.deps.db, 'recordmanager', t.config.ZGW_DEFAULT_TENANT);
  const r = await t.call('PUT', INSTELLINGEN, {
    stappen: [{ naam: 'recordmanager', beoordelaars: ['recordmanager'] }, { naam: 'archivaris' }],
    verklaringZaak: s.verklaringZaak,
    verklaringInformatieobjecttype: s.iot,
  });
  expect(r.statusCode).toBe(200);
  worker = startWorker(t, logs);
}, 120_000);
afterAll(async () => {
  await consumer?.disconnect();
  await stopWorker(worker, 'SIGKILL');
  await t?.close();
  await sl?.close();
});

const call = (method: string, url: string, body?: unknown, tok?: string) =>
  t.call(method, url, body, { headers: CRS, ...(tok ? { token: tok } : {}) });
const count = async (url: string) => {
  const res = await call('GET', url);
  const body = res.json();
  return Array.isArray(body) ? body.length : (body.count as number);
};
const document = (titel: string) =>
  createEio(t, eioBody(s.iot, { titel, indicatieGebruiksrecht: false, inhoud: Buffer.from(titel).toString('base64') }));

it('carries out a list of 1,000 zaken reviewed in two steps, with the worker killed half-way', async () => {
  // the registration: K (open, kept) shares a document with GEDEELD zaken of the list
  const k = await zaak(t, s, { open: true, omschrijving: 'Blijft open' });
  const plain = Array.from({ length: ZAKEN - 2 * HOOFDZAKEN }, (_, i) => i);
  const made = await zijAanZij(plain, 8, async (i) => {
    const z = await zaak(t, s, { open: true, omschrijving: `Zaak ${i}` });
    const parts: { documenten: string[]; besluit?: string; bio?: string } = { documenten: [] };
    if (i < MET_DOCUMENT) {
      const d = await document(`stuk ${i}`);
      await createZ(t, 'zaakinformatieobjecten', { zaak: z.url, informatieobject: d.url });
      parts.documenten.push(d.url);
    }
    if (i >= MET_DOCUMENT && i < MET_DOCUMENT + GEDEELD) {
      const d = await document(`gedeeld ${i}`);
      await createZ(t, 'zaakinformatieobjecten', { zaak: z.url, informatieobject: d.url });
      await createZ(t, 'zaakinformatieobjecten', { zaak: k.url, informatieobject: d.url });
      parts.documenten.push(d.url);
    }
    if (i >= MET_DOCUMENT + GEDEELD && i < MET_DOCUMENT + GEDEELD + MET_BESLUIT) {
      const b = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: z.url }));
      const d = await document(`besluit ${i}`);
      parts.bio = (await createB(t, BIO, { besluit: b.url, informatieobject: d.url })).url;
      parts.besluit = b.url;
      parts.documenten.push(d.url);
    }
    await sluit(t, s, z.url);
    return { zaak: z, ...parts };
  });
  const bomen = await zijAanZij(
    Array.from({ length: HOOFDZAKEN }, (_, i) => i),
    8,
    async (i) => {
      const hoofd = await zaak(t, s, { open: true, omschrijving: `Hoofdzaak ${i}` });
      const deel = await zaak(t, s, { hoofdzaak: hoofd.url, omschrijving: `Deelzaak ${i}` });
      await sluit(t, s, hoofd.url);
      return [hoofd, deel];
    },
  );
  const excluded = made.slice(0, UITGEZONDERD);
  const gedeeld = made.slice(MET_DOCUMENT, MET_DOCUMENT + GEDEELD);
  const documentenVoor = await count(`${EIO}?bronorganisatie=000000000`);

  // every kanaal's notifications from the start (the topics exist now)
  const seen: Notificatie[] = [];
  consumer = createKafka(t.config.KAFKA_BROKERS, 'vernietiging-groot').consumer({ groupId: `${t.topicPrefix}vernietiging` });
  await consumer.connect();
  await consumer.subscribe({ topics: ['zaken', 'documenten', 'besluiten'].map((k) => `${t.topicPrefix}${k}`), fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString()) as Notificatie) });

  // made from a selection, reviewed in two steps: the first excludes ten (back to the maker), then both approve
  const res = await call('POST', LIJSTEN, { naam: 'Alles van 2020', selectie: { datum: '2025-12-31', zaaktype: s.zaaktype } });
  expect(res.statusCode).toBe(201);
  const lijst = res.json();
  expect(lijst.tellingen.voorgesteld).toBe(ZAKEN);
  const recordmanager = token('recordmanager', 'recordmanager-secret');
  await call('POST', `${LIJSTEN}/${lijst.uuid}/indienen`);
  const uitzonderingen = excluded.map((m) => ({ zaak: m.zaak.url, reden: 'bezwaar loopt' }));
  expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, { uitzonderingen }, recordmanager)).json().status).toBe('teruggestuurd');
  await call('POST', `${LIJSTEN}/${lijst.uuid}/indienen`);
  expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, {}, recordmanager)).json().stap).toBe('archivaris');
  expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, {})).json().status).toBe('goedgekeurd');

  // carried out; the worker killed once half the zaken are gone, another one finishes
  expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/uitvoeren`)).statusCode).toBe(202);
  const tellingen = async () => (await call('GET', `${LIJSTEN}/${lijst.uuid}`)).json().tellingen as Record<string, number>;
  expect(await eventually(async () => (await tellingen()).vernietigd >= (ZAKEN - UITGEZONDERD) / 2, 300_000)).toBe(true);
  await stopWorker(worker, 'SIGKILL');
  const halverwege = (await tellingen()).vernietigd;
  expect(halverwege).toBeLessThan(ZAKEN - UITGEZONDERD);
  worker = startWorker(t, logs);
  expect(await eventually(async () => (await call('GET', `${LIJSTEN}/${lijst.uuid}`)).json().status !== 'bezig', 400_000)).toBe(true);
  const klaar = (await call('GET', `${LIJSTEN}/${lijst.uuid}`)).json();
  expect(klaar).toMatchObject({
    status: 'uitgevoerd',
    tellingen: { vernietigd: ZAKEN - UITGEZONDERD, uitgezonderd: UITGEZONDERD, overgeslagen: 0, bezig: 0, voorgesteld: 0 },
  });

  // what is left of the zaaktype: the excluded zaken and K; no besluit; the excluded zaken's and the shared documents
  const zaken = (await call('GET', `${ZRC}/zaken?zaaktype=${encodeURIComponent(s.zaaktype)}`)).json();
  expect(zaken.count).toBe(UITGEZONDERD + 1);
  expect(new Set(zaken.results.map((z: { url: string }) => z.url))).toEqual(new Set([k.url, ...excluded.map((m) => m.zaak.url)]));
  expect(await count(`${BESLUITEN}`)).toBe(0);
  for (const [hoofd, deel] of bomen.slice(0, 5)) for (const z of [hoofd, deel]) expect((await call('GET', z!.url)).statusCode).toBe(404);
  for (const m of made.slice(MET_DOCUMENT + GEDEELD, MET_DOCUMENT + GEDEELD + 5)) {
    for (const url of [m.besluit!, m.bio!, ...m.documenten]) expect([url, (await call('GET', url)).statusCode]).toEqual([url, 404]);
  }
  for (const m of gedeeld) for (const url of m.documenten) expect((await call('GET', url)).statusCode).toBe(200);
  expect(await count(`${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(k.url)}`)).toBe(GEDEELD);
  // the documents: those of the excluded zaken and the shared ones stay, with the verklaring's two
  const verwijderd = MET_DOCUMENT - UITGEZONDERD + MET_BESLUIT;
  expect(await count(`${EIO}?bronorganisatie=000000000`)).toBe(documentenVoor - verwijderd + 2);
  const items = (await call('GET', `${LIJSTEN}/${lijst.uuid}/zaken?status=vernietigd`)).json();
  expect(items.count).toBe(ZAKEN - UITGEZONDERD);

  // the verklaring: stored in the designated zaak and readable, a row per destroyed zaak
  expect(klaar.verklaring).toMatchObject({ zaak: s.verklaringZaak, regels: ZAKEN - UITGEZONDERD });
  const csv = (await call('GET', `${klaar.verklaring.csv}/download`)).body;
  for (const [hoofd, deel] of bomen) for (const z of [hoofd, deel]) expect(csv).toContain(z!.identificatie);
  const velden = csv.split(/\r?\n/).map((line) => line.split(',').map((v) => v.replace(/^"|"$/g, '')));
  for (const m of excluded) expect(velden.some((v) => v.includes(m.zaak.identificatie))).toBe(false);
  expect((await call('GET', `${klaar.verklaring.pdf}/download`)).rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

  // each delete notified exactly once: the zaken, the documents and the besluiten destroyed
  const destroyed = (resource: string) => seen.filter((n) => n.actie === 'destroy' && n.resource === resource).map((n) => n.resourceUrl);
  const quiet = async () => {
    const n = seen.length;
    await new Promise((r) => setTimeout(r, 2000));
    return seen.length === n && destroyed('zaak').length >= ZAKEN - UITGEZONDERD;
  };
  expect(await eventually(quiet, 120_000)).toBe(true);
  const once = (urls: string[], expected: number) => {
    expect(urls.length).toBe(expected);
    expect(new Set(urls).size).toBe(expected);
  };
  once(destroyed('zaak'), ZAKEN - UITGEZONDERD);
  once(destroyed('enkelvoudiginformatieobject'), verwijderd);
  once(destroyed('besluit'), MET_BESLUIT);
  once(destroyed('zaakinformatieobject'), MET_DOCUMENT - UITGEZONDERD + GEDEELD);
}, 900_000);
