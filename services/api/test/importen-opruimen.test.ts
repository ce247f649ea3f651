import type { ChildProcess } from 'node:child_process';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { createEio, eioBody } from './documenten.fixtures';
import { eventually, type TestApp } from './harness';
import { OpenZaakBron } from './openzaak-bron.helpers';
import { LogLines, startListeningApp, startWorker, stopWorker, typen, type Typen } from './overdrachten.fixtures';
import { CRS, createZ, zaakBody } from './zaken.fixtures';

/**
 * The cut-over (issue 63, item 6; docs/moving-in.md): a repeated run of the same source removes here what the source
 * deleted since the previous run (parts before zaken, besluitinformatieobjecten before besluiten, documents only when
 * nothing here still links them), through this platform's own deletes, and reports each with its source URL and ours;
 * objects made here stay; a limited run looks only within its selection; a run that only reports removes nothing and
 * the next one does; the run's URL map lists every object brought once with both URLs. The source is the stand-in
 * that answers as Open Zaak does (OpenZaakBron).
 */
const logs = new LogLines();
let sl: Referentielijsten;
let bron: TestApp;
let doel: TestApp;
let oz: OpenZaakBron;
let t: Typen;
let ander: Typen;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  sl = await startReferentielijsten();
  bron = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, new LogLines());
  doel = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, logs);
  await bron.client('verhuizer', 'verhuizer-secret');
  await ensureAllRights(bron.mongo.db, 'verhuizer', bron.config.ZGW_DEFAULT_TENANT);
  oz = await new OpenZaakBron(bron.config.PUBLIC_BASE_URL).start();
  t = await typen(bron, sl, '000000000', 'ZT-OPRUIM');
  ander = await typen(bron, sl, '000000000', 'ZT-ANDER');
  worker = startWorker(doel, logs, { IMPORT_BRON_RETRY_SECONDS: '3' });
}, 120_000);
afterAll(async () => {
  await stopWorker(worker);
  await oz?.close();
  await bron?.close();
  await doel?.close();
  await sl?.close();
});

async function post(app: TestApp, path: string, body: unknown): Promise<Record<string, any>> {
  const res = await app.call('POST', path, body, { headers: CRS });
  if (res.statusCode !== 201) throw new Error(`POST ${path} gave ${res.statusCode}: ${res.body}`);
  return res.json();
}

async function weg(url: string): Promise<void> {
  // (a document's tombstone waits for the outbox relay, and two of them clash on the documents' unique index until
  // then: the source's delete is tried again, as a client would)
  let res = await bron.call('DELETE', url, undefined, { headers: CRS });
  for (let i = 0; i < 60 && res.statusCode === 400 && res.body.includes('"unique"'); i++) {
    await new Promise((r) => setTimeout(r, 500));
    res = await bron.call('DELETE', url, undefined, { headers: CRS });
  }
  if (res.statusCode !== 204) throw new Error(`DELETE ${url} gave ${res.statusCode}: ${res.body}`);
}

/** A zaak at the source with a rol, a status, a zaakeigenschap and a linked document with content. */
async function zaakMetDelen(typ: Typen, i: number) {
  const zaak = await createZ(bron, 'zaken', zaakBody(typ.zaaktype, { omschrijving: `zaak ${i}`, startdatum: '2021-03-01' }));
  const rol = await createZ(bron, 'rollen', {
    zaak: zaak.url,
    roltype: typ.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'aanvrager',
    betrokkeneIdentificatie: { geslachtsnaam: `Persoon ${i}` },
  });
  const status = await createZ(bron, 'statussen', { zaak: zaak.url, statustype: typ.statustypen.begin, datumStatusGezet: '2021-03-01T10:00:00Z' });
  const eigenschap = await createZ(bron, `zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: typ.eigenschap, waarde: 'blauw' });
  const doc = await createEio(bron, eioBody(typ.iot, { inhoud: Buffer.from(`inhoud ${i}`).toString('base64') }));
  const zio = await createZ(bron, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: doc.url });
  return { zaak, rol, status, eigenschap, doc, zio };
}

/** Our URL of a source object (as the stand-in names it, or the platform behind it). */
const ours = (url: string) =>
  url.replace(/\/$/, '').replace(oz.url, doel.config.PUBLIC_BASE_URL).replace(bron.config.PUBLIC_BASE_URL, doel.config.PUBLIC_BASE_URL);
/** The stand-in's URL of a source object. */
const theirs = (url: string) => url.replace(bron.config.PUBLIC_BASE_URL, oz.url);
const here = async (url: string) => (await doel.call('GET', ours(url), undefined, { headers: CRS })).statusCode;

/** A run from the stand-in until it ends, with its view. */
async function run(body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const started = await doel.call('POST', '/admin/api/v1/importen', { bron: oz.url, clientId: 'verhuizer', secret: 'verhuizer-secret', ...body });
  expect(started.statusCode).toBe(201);
  let view: Record<string, any> = started.json();
  const klaar = await eventually(async () => {
    view = (await doel.call('GET', `/admin/api/v1/importen/${view.id}`)).json();
    return !['bezig', 'gepauzeerd'].includes(view.status);
  }, 90_000);
  if (!klaar || view.status !== 'afgerond')
    console.log(JSON.stringify(view), JSON.stringify(logs.lines.filter((l) => Number(l.level) >= 40).slice(-10), null, 1));
  expect([klaar, view.status]).toEqual([true, 'afgerond']);
  return view;
}

/** The report's entry of a source object. */
const gemeld = (view: Record<string, any>, url: string) =>
  (view.opruiming.objecten as Record<string, string>[]).find((o) => o.bron.replace(/\/$/, '') === theirs(url).replace(/\/$/, ''));

test('a repeated run removes what the source deleted since, in order and reported; what is made or used here stays; the URL map', async () => {
  const a = await zaakMetDelen(t, 0);
  const b = await zaakMetDelen(t, 1);
  const c = await zaakMetDelen(t, 2);
  const x = await zaakMetDelen(ander, 3);
  const besluit = await post(bron, '/besluiten/api/v1/besluiten', {
    verantwoordelijkeOrganisatie: '000000000',
    besluittype: t.besluittype,
    zaak: a.zaak.url,
    datum: '2021-04-01',
    ingangsdatum: '2021-04-01',
  });
  const besluitDoc = await createEio(bron, eioBody(t.iot, { inhoud: Buffer.from('bij het besluit').toString('base64') }));
  const bio = await post(bron, '/besluiten/api/v1/besluitinformatieobjecten', { besluit: besluit.url, informatieobject: besluitDoc.url });
  const los = await createEio(bron, eioBody(t.iot, { inhoud: Buffer.from('los').toString('base64') }));

  const eerste = await run();
  expect(eerste.opruiming).toMatchObject({ vorigeRun: null, objecten: [] });
  for (const u of [a.zaak.url, b.zaak.url, c.zaak.url, x.zaak.url, besluit.url, bio.url, los.url, b.doc.url])
    expect([u, await here(u)]).toEqual([u, 200]);

  // made here: a zaak of this platform linking zaak b's document, and a rol of our own on zaak c
  const hierZaak = await createZ(doel, 'zaken', zaakBody(ours(t.zaaktype), { omschrijving: 'van hier', startdatum: '2022-01-01' }));
  const hierZio = await createZ(doel, 'zaakinformatieobjecten', { zaak: hierZaak.url, informatieobject: ours(b.doc.url) });
  const hierRol = await createZ(doel, 'rollen', {
    zaak: ours(c.zaak.url),
    roltype: ours(t.roltype),
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'van hier',
    betrokkeneIdentificatie: { geslachtsnaam: 'Hier' },
  });

  // the source deletes: zaak b with its parts and its document, zaak c, a's besluit (with its document) and a document
  await weg(b.zaak.url);
  await weg(b.doc.url);
  await weg(c.zaak.url);
  await weg(besluit.url);
  await weg(besluitDoc.url);
  await weg(los.url);

  // a limited run of another zaaktype: nothing of ZT-OPRUIM is its business
  const beperkt = await run({ zaaktypen: ['ZT-ANDER'] });
  expect(beperkt.opruiming).toMatchObject({ vorigeRun: eerste.id, objecten: [] });
  for (const u of [b.zaak.url, c.zaak.url, los.url, besluit.url]) expect([u, await here(u)]).toEqual([u, 200]);

  // the whole registration again (its previous run the limited one, which carried the rest over)
  const tweede = await run();
  expect(tweede.opruiming.vorigeRun).toBe(beperkt.id);
  expect(tweede.opruiming.verwijderen).toBe(true);
  // gone here: zaak b with its parts, the besluit with its document's link, the documents nothing here links
  for (const u of [b.zaak.url, b.rol.url, b.status.url, b.eigenschap.url, b.zio.url, besluit.url, bio.url, besluitDoc.url, los.url]) {
    expect([u, await here(u)]).toEqual([u, 404]);
    expect([u, gemeld(tweede, u)]).toEqual([u, expect.objectContaining({ uitkomst: 'verwijderd', hier: ours(u) })]);
  }
  // kept and reported: b's document that a zaak here links, zaak c that holds a rol of ours
  expect(await here(b.doc.url)).toBe(200);
  expect(gemeld(tweede, b.doc.url)).toMatchObject({ uitkomst: 'behouden', reden: expect.stringContaining('pending-relations') });
  expect(await here(c.zaak.url)).toBe(200);
  expect(gemeld(tweede, c.zaak.url)).toMatchObject({ uitkomst: 'behouden', reden: expect.stringContaining(hierRol.url) });
  // made here, or still at the source: untouched
  for (const u of [hierZaak.url, hierZio.url, hierRol.url, a.zaak.url, a.rol.url, a.doc.url, x.zaak.url])
    expect([u, await here(u)]).toEqual([u, 200]);
  expect(tweede.opruiming.aantallen).toMatchObject({
    'zaken/zaken': { verwijderd: 1, behouden: 1 },
    'documenten/enkelvoudiginformatieobjecten': { verwijderd: 2, behouden: 1 },
    'besluiten/besluiten': { verwijderd: 1 },
    'besluiten/besluitinformatieobjecten': { verwijderd: 1 },
  });
  // deleted as any delete: an audit entry of its own
  const trail = await doel.call('GET', `${ours(los.url)}/audittrail`, undefined, { headers: CRS });
  if (trail.statusCode === 200) expect((trail.json() as { actie: string }[]).map((e) => e.actie)).toContain('destroy');

  // the URL map: every object here of the source once, with both URLs
  const kaart = await doel.call('GET', `/admin/api/v1/importen/${tweede.id}/url-kaart`);
  expect(kaart.statusCode).toBe(200);
  expect(kaart.headers['content-type']).toMatch(/^text\/csv/);
  const [kop, ...regels] = kaart.body.trim().split('\n');
  expect(kop).toBe('bron_url,onze_url');
  const paren = regels.map((r) => r.split(','));
  const bronnen = paren.map(([b0]) => b0!.replace(/\/$/, ''));
  expect(new Set(bronnen).size).toBe(bronnen.length);
  for (const [b0, o] of paren) expect([b0, o]).toEqual([b0, ours(b0!)]);
  for (const u of [a.zaak.url, a.rol.url, a.status.url, a.eigenschap.url, a.doc.url, a.zio.url, x.zaak.url, c.zaak.url, b.doc.url])
    expect([u, bronnen.includes(theirs(u).replace(/\/$/, ''))]).toEqual([u, true]);
  for (const u of [b.zaak.url, los.url, besluit.url]) expect([u, bronnen.includes(theirs(u))]).toEqual([u, false]);

  // a run that only reports removes nothing; the next one does
  await weg(a.rol.url);
  const melden = await run({ verwijderen: false });
  expect(gemeld(melden, a.rol.url)).toMatchObject({ uitkomst: 'te-verwijderen', hier: ours(a.rol.url) });
  expect(await here(a.rol.url)).toBe(200);
  const daarna = await run();
  expect(gemeld(daarna, a.rol.url)).toMatchObject({ uitkomst: 'verwijderd' });
  expect(await here(a.rol.url)).toBe(404);
  expect(await here(a.zaak.url)).toBe(200);
}, 600_000);

test('bad input is a clean 4xx', async () => {
  const base = { bron: oz.url, clientId: 'verhuizer', secret: 'verhuizer-secret' };
  const res = await doel.call('POST', '/admin/api/v1/importen', { ...base, verwijderen: 'nee' });
  expect(res.statusCode).toBe(400);
  expect(res.json().invalidParams.map((p: { name: string }) => p.name)).toContain('verwijderen');
  expect((await doel.call('GET', '/admin/api/v1/importen/00000000-0000-4000-8000-000000000000/url-kaart')).statusCode).toBe(404);
  expect((await doel.call('GET', '/admin/api/v1/importen/niet-een-id/url-kaart')).statusCode).toBe(404);
});
