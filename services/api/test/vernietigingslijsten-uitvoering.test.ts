import type { ChildProcess } from 'node:child_process';
import { AUDIT_READS_COLLECTION, AUDITTRAIL_COLLECTION, TENANT_FIELD, VERNIETIGD_COLLECTION } from '@zgw/shared';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { BESLUITEN, BIO, besluitBody, createB } from './besluiten.fixtures';
import { EIO, createEio, eioBody, storedFiles } from './documenten.fixtures';
import { eventually, type TestApp } from './harness';
import { LogLines, startListeningApp, startWorker, stopWorker } from './overdrachten.fixtures';
import { CRS, ZRC, createZ } from './zaken.fixtures';
import { INSTELLINGEN, LIJSTEN, opzet, sluit, zaak, type Opzet } from './vernietigingslijsten.fixtures';

// Workflow `vernietigen` of the transfer worker carrying out an approved list: per zaak its zaakobjecten, besluiten
// with their documents' links, zaakinformatieobjecten, the documents no other zaak or besluit uses (one still used
// stays, reported), its deelzaken on the list, then the zaak; a zaak changed since the approval is skipped; the
// trail of what went goes with it; the verklaring van vernietiging is stored in the designated zaak.

const logs = new LogLines();
let sl: Referentielijsten;
let t: TestApp;
let s: Opzet;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url, TRANSFER_HEARTBEAT_SECONDS: '3' }, logs);
  s = await opzet(t, sl);
  const r = await t.call('PUT', INSTELLINGEN, {
    stappen: [{ naam: 'archivaris' }],
    verklaringZaak: s.verklaringZaak,
    verklaringInformatieobjecttype: s.iot,
  });
  expect(r.statusCode).toBe(200);
  worker = startWorker(t, logs);
}, 120_000);
afterAll(async () => {
  await stopWorker(worker, 'SIGKILL');
  await t?.close();
  await sl?.close();
});

jest.setTimeout(180_000);

const call = (method: string, url: string, body?: unknown) => t.call(method, url, body, { headers: CRS });
const status = async (url: string) => (await call('GET', url)).statusCode;
const document = (titel: string) =>
  createEio(t, eioBody(s.iot, { titel, indicatieGebruiksrecht: false, inhoud: Buffer.from(`inhoud van ${titel}`).toString('base64') }));

it('destroys an approved list in order, keeps what is used elsewhere or changed since, and stores the verklaring', async () => {
  // A: a zaakobject, a besluit with a document of its own, a document of its own, a document shared with K; its
  // deelzaak A1 (on the list) with a document; C approved, then its date changed; E excluded by the reviewer.
  const a = await zaak(t, s, { open: true, omschrijving: 'Kapvergunning Dorpsstraat' });
  const zo = await createZ(t, 'zaakobjecten', { zaak: a.url, objectType: 'pand', objectIdentificatie: { identificatie: '0599100000000001' } });
  const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: a.url }));
  const d1 = await document('besluitbrief');
  const bio = await createB(t, BIO, { besluit: besluit.url, informatieobject: d1.url });
  const d2 = await document('aanvraag');
  const zio = await createZ(t, 'zaakinformatieobjecten', { zaak: a.url, informatieobject: d2.url });
  const d3 = await document('gedeeld');
  await createZ(t, 'zaakinformatieobjecten', { zaak: a.url, informatieobject: d3.url });
  const k = await zaak(t, s, { open: true, omschrijving: 'Blijft' });
  await createZ(t, 'zaakinformatieobjecten', { zaak: k.url, informatieobject: d3.url });
  const a1 = await zaak(t, s, { open: true, hoofdzaak: a.url, omschrijving: 'Deelzaak' });
  const d4 = await document('deelstuk');
  await createZ(t, 'zaakinformatieobjecten', { zaak: a1.url, informatieobject: d4.url });
  await sluit(t, s, a1.url);
  await sluit(t, s, a.url);
  const c = await zaak(t, s, { omschrijving: 'Gewijzigd' });
  const e = await zaak(t, s, { omschrijving: 'Uitgezonderd' });
  const h = await zaak(t, s, { omschrijving: 'Krijgt een deelzaak' });
  // read once, so a read entry of A exists too
  expect(await status(a.url)).toBe(200);

  const lijst = (await call('POST', LIJSTEN, { naam: 'Kap 2020', zaken: [a.url, a1.url, c.url, e.url, h.url] })).json();
  expect(lijst.tellingen.voorgesteld).toBe(5);
  await call('POST', `${LIJSTEN}/${lijst.uuid}/indienen`);
  await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, { uitzonderingen: [{ zaak: e.url, reden: 'nog in behandeling bij de rechter' }] });
  await call('POST', `${LIJSTEN}/${lijst.uuid}/indienen`);
  expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, {})).json().status).toBe('goedgekeurd');
  expect((await call('PATCH', c.url, { archiefactiedatum: '2020-12-31' })).statusCode).toBe(200);
  // H gets a deelzaak after the approval, not on the list: H's delete would take it along, so H stays
  const hDeel = await zaak(t, s, { open: true, hoofdzaak: h.url, omschrijving: 'Nieuwe deelzaak' });

  // read entries as the audit worker stores them: one of A alone, one of a list that showed A and K
  const reads = t.mongo.db.collection<{ _id: string } & Record<string, unknown>>(AUDIT_READS_COLLECTION);
  const read = (uuid: string, hoofdObjecten: string[]) => ({
    _id: uuid,
    uuid,
    [TENANT_FIELD]: t.config.ZGW_DEFAULT_TENANT,
    bron: 'ZRC',
    clientId: 'lezer',
    actie: 'list',
    resource: 'zaak',
    aanmaakdatum: new Date().toISOString(),
    hoofdObjecten,
    getoond: hoofdObjecten.map((h, i) => ['zaak', h, i]),
  });
  await reads.insertMany([read(`${lijst.uuid.slice(0, 30)}aaaaaa`, [a.url]), read(`${lijst.uuid.slice(0, 30)}bbbbbb`, [a.url, k.url])]);
  const bestanden = await storedFiles(t);
  const gestart = await call('POST', `${LIJSTEN}/${lijst.uuid}/uitvoeren`);
  expect(gestart.statusCode).toBe(202);
  expect(gestart.json()).toMatchObject({ status: 'bezig', uitvoering: { workflowId: `vernietiging-${lijst.uuid}` } });
  expect(await eventually(async () => (await call('GET', `${LIJSTEN}/${lijst.uuid}`)).json().status !== 'bezig', 120_000)).toBe(true);
  const klaar = (await call('GET', `${LIJSTEN}/${lijst.uuid}`)).json();
  expect(klaar).toMatchObject({ status: 'uitgevoerd', tellingen: { vernietigd: 2, overgeslagen: 2, uitgezonderd: 1, voorgesteld: 0, bezig: 0 } });
  // done: not carried out again, and a zaak it destroyed is refused by a new list as such
  expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/uitvoeren`)).statusCode).toBe(409);
  const weer = await call('POST', LIJSTEN, { naam: 'nog eens', zaken: [a.url, c.url] });
  expect(weer.statusCode).toBe(400);
  expect(weer.json().invalidParams).toEqual([expect.objectContaining({ name: 'zaken.0', code: 'al-vernietigd' })]);

  // gone, each of its parts; kept: the shared document, the zaak it is shared with, the changed and the excluded zaak
  for (const url of [a.url, a1.url, zo.url, besluit.url, bio.url, zio.url, d1.url, d2.url, d4.url])
    expect([url, await status(url)]).toEqual([url, 404]);
  for (const url of [d3.url, k.url, c.url, e.url, h.url, hDeel.url]) expect([url, await status(url)]).toEqual([url, 200]);
  // the content of the three documents that went is gone from the store (the verklaring's two came)
  expect(await storedFiles(t)).toBe(bestanden - 3 + 2);
  const byZaak = new Map(((await call('GET', `${LIJSTEN}/${lijst.uuid}/zaken`)).json().results as Record<string, any>[]).map((i) => [i.zaak, i]));
  expect(byZaak.get(a.url)).toMatchObject({
    status: 'vernietigd',
    verslag: { zaakobjecten: 1, besluiten: 1, besluitinformatieobjecten: 1, zaakinformatieobjecten: 2, documenten: 2, deelzaken: 1 },
  });
  expect(byZaak.get(a.url)!.verslag.documentenBehouden).toEqual([{ url: d3.url, reden: expect.stringContaining(k.url) }]);
  expect(byZaak.get(a1.url)).toMatchObject({ status: 'vernietigd', verslag: { documenten: 1 } });
  expect(byZaak.get(c.url)).toMatchObject({ status: 'overgeslagen', reden: 'gewijzigd-sinds-goedkeuring' });
  expect(byZaak.get(e.url)).toMatchObject({ status: 'uitgezonderd' });
  expect(byZaak.get(h.url)).toMatchObject({ status: 'overgeslagen', reden: 'deelzaak-niet-op-lijst' });

  // the trail of what went went with it (the deletes' entries too); the trail of what stayed is there
  const trail = t.mongo.db.collection(AUDITTRAIL_COLLECTION);
  for (const url of [a.url, a1.url, besluit.url, d1.url, d2.url, d4.url])
    expect([url, await trail.countDocuments({ hoofdObject: url })]).toEqual([url, 0]);
  expect(await trail.countDocuments({ hoofdObject: c.url })).toBeGreaterThan(0);
  expect(await trail.countDocuments({ hoofdObject: d3.url })).toBeGreaterThan(0);
  expect(await t.mongo.db.collection(VERNIETIGD_COLLECTION).countDocuments({ _id: d3.url })).toBe(0);
  expect(await reads.findOne({ _id: `${lijst.uuid.slice(0, 30)}aaaaaa` })).toBeNull();
  expect(await reads.findOne({ _id: `${lijst.uuid.slice(0, 30)}bbbbbb` })).toMatchObject({ hoofdObjecten: [k.url], getoond: [['zaak', k.url, 0]] });

  // the verklaring: PDF and CSV as documents in the designated zaak, and from the list's record
  expect(klaar.verklaring).toMatchObject({ zaak: s.verklaringZaak, regels: 2 });
  const pdf = (await call('GET', `${klaar.verklaring.pdf}/download`)).rawPayload;
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  const csv = (await call('GET', `${klaar.verklaring.csv}/download`)).body;
  expect(csv).toContain(a.identificatie);
  expect(csv).toContain(a1.identificatie);
  expect(csv).not.toContain(c.identificatie);
  expect(csv).not.toContain(e.identificatie);
  const links = (await call('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(s.verklaringZaak)}`)).json() as {
    informatieobject: string;
  }[];
  expect(links.map((l) => l.informatieobject).sort()).toEqual([klaar.verklaring.pdf, klaar.verklaring.csv].sort());
  const download = await call('GET', `${LIJSTEN}/${lijst.uuid}/verklaring?formaat=csv`);
  expect(download.statusCode).toBe(200);
  expect(download.body).toBe(csv);
  expect((await call('GET', `${LIJSTEN}/${lijst.uuid}/verklaring?formaat=pdf`)).headers['content-type']).toBe('application/pdf');
  expect((await call('GET', `${EIO}?bronorganisatie=000000000`)).statusCode).toBe(200);
});
