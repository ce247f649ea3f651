import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { AdminBrowser, PASSWORD } from './admin-ui.helpers';
import { EIO, eioBody } from './documenten.fixtures';
import { eventually, token, type TestApp } from './harness';
import { LogLines, startListeningApp, startWorker, stopWorker, typen, type Typen } from './overdrachten.fixtures';
import { CRS, ZRC, createZ, zaakBody } from './zaken.fixtures';

/**
 * The registration import as an administrator runs it: `POST /admin/api/v1/importen` against another registration (a
 * second instance of this platform, over HTTP, with credentials it gave us), carried out by the transfer worker's
 * workflow, page by page per collection; progress and a verification on the run; a source that refuses our
 * credentials ends the run `mislukt` with the reason.
 */
const logs = new LogLines();
/** The most content a document version may bring here (a document of more fails with why). */
const GRENS = { IMPORT_MAX_INHOUD_BYTES: '5000' };
let sl: Referentielijsten;
let bron: TestApp;
let doel: TestApp;
let s: Typen;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  sl = await startReferentielijsten();
  bron = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, new LogLines());
  doel = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url, ADMIN_INITIAL_USER: 'platform', ADMIN_INITIAL_PASSWORD: PASSWORD, ...GRENS }, logs);
  s = await typen(bron, sl, '000000000', 'ZT-RUN');
  await bron.client('verhuizer', 'verhuizer-secret');
  await ensureAllRights(bron.mongo.db, 'verhuizer', bron.config.ZGW_DEFAULT_TENANT);
  const zip = await bron.call('GET', `/admin/api/v1/catalogussen/${s.catalogus.split('/').pop()}/export`);
  const imported = await doel.app.inject({
    method: 'POST',
    url: '/admin/api/v1/catalogussen/import',
    payload: zip.rawPayload,
    headers: { 'content-type': 'application/zip', authorization: `Bearer ${token()}` },
  });
  expect(imported.statusCode).toBe(201);
  worker = startWorker(doel, logs, GRENS);
}, 120_000);
afterAll(async () => {
  await stopWorker(worker);
  await bron?.close();
  await doel?.close();
  await sl?.close();
});

const ours = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll(bron.config.PUBLIC_BASE_URL, doel.config.PUBLIC_BASE_URL));
const get = async (t: TestApp, url: string) => {
  const res = await t.call('GET', url, undefined, { headers: CRS });
  expect(res.statusCode).toBe(200);
  return res.json();
};

async function runTotHetEinde(body: Record<string, unknown>): Promise<Record<string, any>> {
  const started = await doel.call('POST', '/admin/api/v1/importen', { bron: bron.config.PUBLIC_BASE_URL, ...body });
  expect(started.statusCode).toBe(201);
  expect(started.json()).not.toHaveProperty('secret');
  const id = started.json().id as string;
  let run: Record<string, any> = started.json();
  const klaar = await eventually(async () => {
    run = (await doel.call('GET', `/admin/api/v1/importen/${id}`)).json();
    return !['bezig', 'gepauzeerd'].includes(run.status);
  }, 40_000);
  if (!klaar)
    console.log(
      JSON.stringify(run),
      JSON.stringify(logs.lines.filter((l) => Number(l.level) >= 40 || String(l.msg).includes('mport')).slice(-15), null, 1),
    );
  expect(klaar).toBe(true);
  return run;
}

test('a registration of several pages comes over whole: zaken with parts, documents with content, besluiten', async () => {
  const zaken = [];
  // more than one page of zaken (100 a page)
  for (let i = 0; i < 105; i++)
    zaken.push(await createZ(bron, 'zaken', zaakBody(s.zaaktype, { omschrijving: `zaak ${i}`, startdatum: '2020-01-02' })));
  const rol = await createZ(bron, 'rollen', {
    zaak: zaken[0]!.url,
    roltype: s.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'aanvrager',
    betrokkeneIdentificatie: { inpBsn: '111222333' },
  });
  await createZ(bron, 'statussen', {
    zaak: zaken[0]!.url,
    statustype: s.statustypen.begin,
    datumStatusGezet: '2020-01-02T10:00:00Z',
    gezetdoor: rol.url,
  });
  // a later status, and one set after it with an earlier date: the source calls the later one its last
  await createZ(bron, 'statussen', { zaak: zaken[0]!.url, statustype: s.statustypen.begin, datumStatusGezet: '2020-01-05T10:00:00Z' });
  await createZ(bron, 'statussen', {
    zaak: zaken[0]!.url,
    statustype: s.statustypen.begin,
    datumStatusGezet: '2020-01-03T10:00:00Z',
    gezetdoor: rol.url,
  });
  await createZ(bron, `zaken/${zaken[0]!.uuid}/zaakeigenschappen`, { zaak: zaken[0]!.url, eigenschap: s.eigenschap, waarde: 'blauw' });
  const doc = (await bron.call('POST', EIO, eioBody(s.iot, { inhoud: Buffer.from('de inhoud').toString('base64') }))).json();
  await createZ(bron, 'zaakinformatieobjecten', { zaak: zaken[0]!.url, informatieobject: doc.url });
  const besluit = await bron.call('POST', '/besluiten/api/v1/besluiten', {
    verantwoordelijkeOrganisatie: '000000000',
    besluittype: s.besluittype,
    zaak: zaken[1]!.url,
    datum: '2020-02-01',
    ingangsdatum: '2020-02-01',
  });
  expect(besluit.statusCode).toBe(201);

  const run = await runTotHetEinde({ clientId: 'verhuizer', secret: 'verhuizer-secret' });
  expect([run.status, run.fout]).toEqual(['afgerond', undefined]);
  expect(run.fout).toBeUndefined();
  expect(run.fouten).toEqual([]);
  expect(run.tellingen['zaken/zaken']).toMatchObject({ gelezen: 105, nieuw: 105, mislukt: 0 });
  expect(run.tellingen['documenten/enkelvoudiginformatieobjecten'].bytes).toBe('de inhoud'.length);
  for (const [k, v] of Object.entries(run.verificatie as Record<string, { bron: number; hier: number }>)) expect([k, v.hier]).toEqual([k, v.bron]);
  // the one document's one version, read from both sides
  expect(run.inhoudVerificatie).toEqual({ versies: 1, aantalAfwijkend: 0, afwijkend: [] });
  expect(await get(doel, ours(zaken[0]!.url))).toEqual(ours(await get(bron, zaken[0]!.url)));
  expect(await get(doel, ours(besluit.json().url))).toEqual(ours(besluit.json()));
  // the statussen as their source has them: which one is the last, the rol that set two of them
  const statussen = async (api: TestApp, zaak: string) =>
    ((await get(api, `${ZRC}/statussen?zaak=${encodeURIComponent(zaak)}`)).results as { url: string; indicatieLaatstGezetteStatus: boolean }[]).sort(
      (a, b) => a.url.localeCompare(b.url),
    );
  expect(await statussen(doel, ours(zaken[0]!.url))).toEqual(ours(await statussen(bron, zaken[0]!.url)));
  expect((await statussen(doel, ours(zaken[0]!.url))).map((x) => x.indicatieLaatstGezetteStatus).sort()).toEqual([false, false, true]);
  expect(await get(doel, ours(rol.url))).toEqual(ours(await get(bron, rol.url)));
  expect((await doel.call('GET', `${ours(doc.url)}/download`)).rawPayload.toString()).toBe('de inhoud');
  const eigenschappen = await get(doel, `${ours(zaken[0]!.url)}/zaakeigenschappen`);
  expect(eigenschappen.map((e: { waarde: string }) => e.waarde)).toEqual(['blauw']);
  expect(logs.lines.some((l) => l.msg === 'import afgerond')).toBe(true);
  // the worker's metrics count what it brought
  const port = logs.lines.find((l) => l.msg === 'metrics, health and readiness served')?.port;
  const metrics = await (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(metrics)?.[1]);
  expect(value('zgw_import_objects_total{collectie="zaken/zaken",uitkomst="nieuw",service="transfer"}')).toBeGreaterThanOrEqual(105);
  expect(value('zgw_import_content_bytes_total{service="transfer"}')).toBeGreaterThanOrEqual('de inhoud'.length);
  expect(value('zgw_imports_total{status="afgerond",service="transfer"}')).toBeGreaterThanOrEqual(1);
  // the source's own trail came along (the rol's and the status's entries in the zaak's), sealed at rest as ours is
  const bronTrail = (await get(bron, `${zaken[0]!.url}/audittrail`)) as Record<string, unknown>[];
  const onzeTrail = (await get(doel, `${ours(zaken[0]!.url)}/audittrail`)) as Record<string, unknown>[];
  expect(bronTrail.map((e) => e.resource)).toEqual(expect.arrayContaining(['zaak', 'rol', 'status']));
  for (const entry of bronTrail) expect(onzeTrail).toContainEqual(ours(entry));
  expect(run.tellingen['zaken/audittrail']).toMatchObject({ nieuw: expect.any(Number), mislukt: 0, bezet: 0 });
  expect(run.tellingen['zaken/audittrail'].nieuw).toBeGreaterThanOrEqual(105 + bronTrail.length - 1);
  const raw = await doel.mongo.db
    .collection('audittrail')
    .find({ _id: { $in: bronTrail.map((e) => e.uuid as string) } } as object)
    .toArray();
  expect(raw.length).toBe(bronTrail.length);
  expect(JSON.stringify(raw)).not.toContain('111222333');

  // a second run brings what changed and nothing twice
  expect((await bron.call('PATCH', zaken[2]!.url, { omschrijving: 'gewijzigd' }, { headers: CRS })).statusCode).toBe(200);
  await createZ(bron, 'statussen', { zaak: zaken[0]!.url, statustype: s.statustypen.begin, datumStatusGezet: '2020-01-09T10:00:00Z' });
  const again = await runTotHetEinde({ clientId: 'verhuizer', secret: 'verhuizer-secret' });
  expect([again.status, again.fouten]).toEqual(['afgerond', []]);
  expect(again.tellingen['zaken/zaken']).toMatchObject({ gelezen: 105, nieuw: 0, bijgewerkt: 105 });
  expect((await get(doel, ours(zaken[2]!.url))).omschrijving).toBe('gewijzigd');
  // the new last status: the zaak names it, the one before is no longer the last
  expect(await statussen(doel, ours(zaken[0]!.url))).toEqual(ours(await statussen(bron, zaken[0]!.url)));
  expect(await get(doel, ours(zaken[0]!.url))).toEqual(ours(await get(bron, zaken[0]!.url)));
  expect((await get(doel, `${ZRC}/zaken`)).count).toBe(105);
}, 180_000);

test('a run pauses after the page under way, resumes, and a cancelled run ends geannuleerd', async () => {
  // (the source holds the registration of the first test: more than two pages)
  const started = (
    await doel.call('POST', '/admin/api/v1/importen', { bron: bron.config.PUBLIC_BASE_URL, clientId: 'verhuizer', secret: 'verhuizer-secret' })
  ).json();
  const paused = await doel.call('POST', `/admin/api/v1/importen/${started.id}/pauzeren`);
  expect(paused.statusCode).toBe(200);
  expect(paused.json().status).toBe('gepauzeerd');
  const pages = async () => JSON.stringify((await doel.call('GET', `/admin/api/v1/importen/${started.id}`)).json().tellingen);
  await new Promise((r) => setTimeout(r, 3000));
  const before = await pages();
  await new Promise((r) => setTimeout(r, 3000));
  expect(await pages()).toBe(before);
  // not done meanwhile: the whole run takes a few seconds when it is not held
  expect((await doel.call('GET', `/admin/api/v1/importen/${started.id}`)).json().status).toBe('gepauzeerd');
  expect(JSON.parse(before)['besluiten/besluiten']).toBeUndefined();
  expect((await doel.call('POST', `/admin/api/v1/importen/${started.id}/hervatten`)).json().status).toBe('bezig');
  expect(await eventually(async () => (await doel.call('GET', `/admin/api/v1/importen/${started.id}`)).json().status === 'afgerond', 60_000)).toBe(
    true,
  );
  const ended = await doel.call('POST', `/admin/api/v1/importen/${started.id}/annuleren`);
  expect(ended.statusCode).toBe(409);

  const other = (
    await doel.call('POST', '/admin/api/v1/importen', { bron: bron.config.PUBLIC_BASE_URL, clientId: 'verhuizer', secret: 'verhuizer-secret' })
  ).json();
  expect((await doel.call('POST', `/admin/api/v1/importen/${other.id}/annuleren`)).statusCode).toBe(200);
  expect(await eventually(async () => (await doel.call('GET', `/admin/api/v1/importen/${other.id}`)).json().status === 'geannuleerd', 30_000)).toBe(
    true,
  );
}, 120_000);

test('a limited run brings the chosen zaken with their parts, documents and besluiten, and nothing else', async () => {
  // (its catalogus is not here: the run brings it first)
  const ander = await typen(bron, sl, '000000000', 'ZT-ANDER');
  const binnen = await createZ(bron, 'zaken', zaakBody(s.zaaktype, { startdatum: '2021-06-01' }));
  const teVroeg = await createZ(bron, 'zaken', zaakBody(s.zaaktype, { startdatum: '2019-01-01' }));
  const anderType = await createZ(bron, 'zaken', zaakBody(ander.zaaktype, { startdatum: '2021-06-01' }));
  const andereOrganisatie = await createZ(bron, 'zaken', zaakBody(s.zaaktype, { startdatum: '2021-06-01', bronorganisatie: '123456782' }));
  const rolBuiten = await createZ(bron, 'rollen', {
    zaak: teVroeg.url,
    roltype: s.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'x',
    betrokkeneIdentificatie: { geslachtsnaam: 'Buiten' },
  });
  const doc = async (tekst: string) => (await bron.call('POST', EIO, eioBody(s.iot, { inhoud: Buffer.from(tekst).toString('base64') }))).json();
  const [bijZaak, bijBesluit, los] = [await doc('bij de zaak'), await doc('bij het besluit'), await doc('los')];
  await createZ(bron, 'zaakinformatieobjecten', { zaak: binnen.url, informatieobject: bijZaak.url });
  const besluit = (
    await bron.call('POST', '/besluiten/api/v1/besluiten', {
      verantwoordelijkeOrganisatie: '000000000',
      besluittype: s.besluittype,
      zaak: binnen.url,
      datum: '2021-07-01',
      ingangsdatum: '2021-07-01',
    })
  ).json();
  expect(
    (await bron.call('POST', '/besluiten/api/v1/besluitinformatieobjecten', { besluit: besluit.url, informatieobject: bijBesluit.url })).statusCode,
  ).toBe(201);

  const selectie = { zaaktypen: ['ZT-RUN'], vanaf: '2021-01-01', bronorganisatie: '000000000' };
  const run = await runTotHetEinde({ clientId: 'verhuizer', secret: 'verhuizer-secret', ...selectie });
  const here = async (url: string) => (await doel.call('GET', ours(url), undefined, { headers: CRS })).statusCode;
  expect([run.status, run.fout, run.fouten]).toEqual(['afgerond', undefined, []]);
  expect(run.selectie).toEqual(selectie);
  expect(run.tellingen['catalogi/catalogussen']).toMatchObject({ nieuw: 1, overgeslagen: 1, mislukt: 0 });
  expect(await get(doel, ours(ander.zaaktype))).toEqual(ours(await get(bron, ander.zaaktype)));
  const zaken = [binnen, teVroeg, anderType, rolBuiten, andereOrganisatie];
  expect(await Promise.all(zaken.map((z) => here(z.url)))).toEqual([200, 404, 404, 404, 404]);
  expect([await here(bijZaak.url), await here(bijBesluit.url), await here(los.url), await here(besluit.url)]).toEqual([200, 200, 404, 200]);
  expect((await doel.call('GET', `${ours(bijBesluit.url)}/download`)).rawPayload.toString()).toBe('bij het besluit');
  expect(run.tellingen['zaken/zaken']).toMatchObject({ gelezen: 1, nieuw: 1 });
  // (the rollen of its zaken asked for by zaak: the rol of a zaak it does not bring is not even read)
  expect(run.tellingen['zaken/rollen']).toMatchObject({ gelezen: 0, overgeslagen: 0 });
  expect(run.inhoudVerificatie).toMatchObject({ aantalAfwijkend: 0 });
  expect(run.inhoudVerificatie.versies).toBeGreaterThanOrEqual(2);
}, 120_000);

test('a catalogus here under other UUIDs: the zaken come naming its types, found by identificatie and version date', async () => {
  const elders = await typen(bron, sl, '000000000', 'ZT-ELDERS');
  const zip = await bron.call('GET', `/admin/api/v1/catalogussen/${elders.catalogus.split('/').pop()}/export`);
  const imported = await doel.app.inject({
    method: 'POST',
    url: '/admin/api/v1/catalogussen/import?nieuweUuids=true',
    payload: zip.rawPayload,
    headers: { 'content-type': 'application/zip', authorization: `Bearer ${token()}` },
  });
  expect(imported.statusCode).toBe(201);
  const [zaaktype] = (await get(doel, '/catalogi/api/v1/zaaktypen?identificatie=ZT-ELDERS')).results;
  expect(zaaktype.url).not.toBe(ours(elders.zaaktype));
  const onze = async (collection: string) => (await get(doel, `/catalogi/api/v1/${collection}?zaaktype=${encodeURIComponent(zaaktype.url)}`)).results;
  const [statustypen, [roltype]] = [await onze('statustypen'), await onze('roltypen')];
  const zaak = await createZ(bron, 'zaken', zaakBody(elders.zaaktype, { startdatum: '2022-02-02' }));
  const status = await createZ(bron, 'statussen', { zaak: zaak.url, statustype: elders.statustypen.begin, datumStatusGezet: '2022-02-03T10:00:00Z' });
  const rol = await createZ(bron, 'rollen', {
    zaak: zaak.url,
    roltype: elders.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'x',
    betrokkeneIdentificatie: { geslachtsnaam: 'Elders' },
  });

  const run = await runTotHetEinde({ clientId: 'verhuizer', secret: 'verhuizer-secret', zaaktypen: ['ZT-ELDERS'] });
  expect([run.status, run.fout, run.fouten]).toEqual(['afgerond', undefined, []]);
  // the catalogus was not brought again under the source's UUIDs
  expect((await doel.call('GET', ours(elders.zaaktype), undefined, { headers: CRS })).statusCode).toBe(404);
  expect(run.tellingen['catalogi/catalogussen'].nieuw).toBe(0);
  expect((await get(doel, ours(zaak.url))).zaaktype).toBe(zaaktype.url);
  const begin = statustypen.find((st: { volgnummer: number }) => st.volgnummer === 1);
  expect((await get(doel, ours(status.url))).statustype).toBe(begin.url);
  expect((await get(doel, ours(rol.url))).roltype).toBe(roltype.url);
  // the rest of the zaak as the source has it
  const { zaaktype: _z, ...rest } = await get(bron, zaak.url);
  expect(await get(doel, ours(zaak.url))).toMatchObject(ours(rest));
}, 120_000);

test('a dry run tells what would be stored and what would fail and stores nothing; the run after it brings the same', async () => {
  // a catalogus that is not here, a zaak of it with its parts, a document within the limit and one over it
  const proef = await typen(bron, sl, '000000000', 'ZT-PROEF');
  const zaak = await createZ(bron, 'zaken', zaakBody(proef.zaaktype, { startdatum: '2022-03-01' }));
  const rol = await createZ(bron, 'rollen', {
    zaak: zaak.url,
    roltype: proef.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'x',
    betrokkeneIdentificatie: { geslachtsnaam: 'Proef' },
  });
  const status = await createZ(bron, 'statussen', { zaak: zaak.url, statustype: proef.statustypen.begin, datumStatusGezet: '2022-03-01T10:00:00Z' });
  const doc = async (bytes: number) =>
    (await bron.call('POST', EIO, eioBody(proef.iot, { inhoud: Buffer.alloc(bytes, 'x').toString('base64') }))).json();
  const [klein, groot] = [await doc(100), await doc(6000)];
  const kleinLink = await createZ(bron, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: klein.url });
  const grootLink = await createZ(bron, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: groot.url });
  const here = async (url: string) => (await doel.call('GET', ours(url), undefined, { headers: CRS })).statusCode;
  const selectie = { clientId: 'verhuizer', secret: 'verhuizer-secret', zaaktypen: ['ZT-PROEF'] };

  const dry = await runTotHetEinde({ ...selectie, dryRun: true });
  expect([dry.status, dry.fout, dry.dryRun]).toEqual(['afgerond', undefined, true]);
  expect(dry.tellingen['catalogi/catalogussen']).toMatchObject({ nieuw: 1, mislukt: 0 });
  // the parts meet the zaak and its types as the run would have stored them
  expect(dry.tellingen['zaken/zaken']).toMatchObject({ gelezen: 1, nieuw: 1, mislukt: 0 });
  expect(dry.tellingen['zaken/rollen']).toMatchObject({ nieuw: 1, mislukt: 0 });
  expect(dry.tellingen['zaken/statussen']).toMatchObject({ nieuw: 1, mislukt: 0 });
  expect(dry.tellingen['zaken/zaakinformatieobjecten']).toMatchObject({ mislukt: 1 });
  expect(dry.tellingen['documenten/enkelvoudiginformatieobjecten']).toMatchObject({ nieuw: 1, mislukt: 1 });
  const waarom = (url: string) => dry.fouten.find((f: { url: string }) => f.url === url)?.reden;
  expect(waarom(groot.url)).toMatch(/^inhoud-te-groot: .*6000 bytes, grens 5000 bytes/);
  expect(waarom(grootLink.url)).toMatch(/informatieobject/);
  expect(dry.fouten).toHaveLength(2);
  for (const url of [proef.catalogus, proef.zaaktype, zaak.url, rol.url, status.url, klein.url, kleinLink.url])
    expect([url, await here(url)]).toEqual([url, 404]);
  expect(await doel.mongo.db.collection('importen_proef').countDocuments({ run: dry.id })).toBe(0);

  const echt = await runTotHetEinde(selectie);
  expect([echt.status, echt.fout]).toEqual(['afgerond', undefined]);
  for (const key of ['catalogi/catalogussen', 'zaken/zaken', 'zaken/rollen', 'zaken/statussen', 'zaken/zaakinformatieobjecten'])
    expect([key, echt.tellingen[key].nieuw, echt.tellingen[key].mislukt]).toEqual([key, dry.tellingen[key].nieuw, dry.tellingen[key].mislukt]);
  expect(echt.fouten.map((f: { url: string }) => f.url).sort()).toEqual([groot.url, grootLink.url].sort());
  for (const url of [proef.catalogus, proef.zaaktype, zaak.url, rol.url, status.url, klein.url, kleinLink.url])
    expect([url, await here(url)]).toEqual([url, 200]);
  expect([await here(groot.url), await here(grootLink.url)]).toEqual([404, 404]);
}, 120_000);

test('the admin screen starts a dry run, shows its progress and what failed, and steers only a run under way', async () => {
  const b = new AdminBrowser(doel);
  expect((await b.login('platform', PASSWORD)).statusCode).toBe(303);
  const home = await b.get('/admin/');
  expect(home.body).toContain('/admin/importen');
  // the runs of the earlier tests, with their totals
  const list = await b.get('/admin/importen');
  expect(list.statusCode).toBe(200);
  expect(list.body).toMatch(/<table id="importen">[\s\S]*data-status="afgerond"/);
  const bad = await b.post('/admin/importen', { bron: 'geen url', clientId: 'verhuizer', secret: 'x', dryRun: 'on' });
  expect(bad.statusCode).toBe(400);
  expect(bad.body).toContain('bron');
  const started = await b.post('/admin/importen', {
    bron: bron.config.PUBLIC_BASE_URL,
    clientId: 'verhuizer',
    secret: 'verhuizer-secret',
    zaaktypen: 'ZT-PROEF',
    dryRun: 'on',
  });
  expect(started.statusCode).toBe(303);
  const page = String(started.headers.location).split('?')[0]!;
  let shown = await b.get(page);
  expect(shown.body).toContain('Proefimport uit');
  const klaar = await eventually(async () => {
    shown = await b.get(page);
    return shown.body.includes('data-status="afgerond"');
  }, 40_000);
  expect(klaar).toBe(true);
  // ended: no refresh, no steering; the counts per collection and the document over the limit with why
  expect(shown.body).not.toContain('http-equiv="refresh"');
  expect(shown.body).not.toContain('/pauzeren');
  expect(shown.body).toMatch(/<tr><td>zaken\/zaken<\/td><td>1<\/td><td>0<\/td><td>1<\/td>/);
  expect(shown.body).toMatch(/<table id="fouten">[\s\S]*inhoud-te-groot/);
  expect((await b.post(`${page}/pauzeren`)).statusCode).toBe(409);
}, 120_000);

test('a source that answers what is no ZGW list ends the run mislukt with the reason', async () => {
  const nep = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>onderhoud</html>'));
  await new Promise<void>((resolve) => nep.listen(0, '127.0.0.1', resolve));
  try {
    const run = await runTotHetEinde({ bron: `http://127.0.0.1:${(nep.address() as AddressInfo).port}`, clientId: 'x', secret: 'y' });
    expect(run.status).toBe('mislukt');
    expect(run.fout).toMatch(/het antwoord is geen ZGW-lijst/);
  } finally {
    nep.close();
  }
}, 120_000);

test('a source that refuses the credentials ends the run mislukt with the reason; the secret is never shown', async () => {
  const run = await runTotHetEinde({ clientId: 'verhuizer', secret: 'fout' });
  expect(run.status).toBe('mislukt');
  expect(run.fout).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/catalogi\/api\/v1\/catalogussen: status 403/);
  const list = (await doel.call('GET', '/admin/api/v1/importen')).json();
  expect(JSON.stringify(list)).not.toContain('verhuizer-secret');
}, 120_000);
