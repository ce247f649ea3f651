/**
 * The destruction list screens end to end in headless Chromium (as admin-archief-e2e.test.ts; ZGW_CHROMIUM names the
 * browser), with the transfer worker carrying the list out: an archivist sets two review steps and where the verklaring
 * goes, makes a list from a selection, submits it; the first step excludes a zaak with a reason and a new
 * archiefactiedatum (back to the maker), the list is submitted again and approved in both steps, carried out and
 * followed to its end; the verklaring van vernietiging is downloaded as PDF and CSV.
 */
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { AdminBrowser, loginInBrowser, openAdminBrowser, PASSWORD, SHOTS } from './admin-ui.helpers';
import { AdminUsers } from '../src/admin/ui/users';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import type { TestApp } from './harness';
import { LogLines, startListeningApp, startWorker, stopWorker } from './overdrachten.fixtures';
import { CRS, ZRC } from './zaken.fixtures';
import { createEio, eioBody } from './documenten.fixtures';
import { LIJSTEN, opzet, zaak, type Opzet } from './vernietigingslijsten.fixtures';

jest.setTimeout(300_000);

let t: TestApp;
let sl: Referentielijsten;
let worker: ChildProcess | undefined;
let base: string;
let browser: Browser;
let page: Page;
let s: Opzet;
const logs = new LogLines();
const elsewhere: string[] = [];

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url, ADMIN_INITIAL_USER: 'archivaris', ADMIN_INITIAL_PASSWORD: PASSWORD }, logs);
  base = t.config.PUBLIC_BASE_URL;
  worker = startWorker(t, logs);
  s = await opzet(t, sl);
  ({ browser, page } = await openAdminBrowser(base, elsewhere, { width: 1400, acceptDialogs: true }));
  // the machine is shared (other processes, a worker bundling its workflows): waits get room, nothing is timed
  page.setDefaultTimeout(90_000);
});

afterAll(async () => {
  await browser?.close();
  await stopWorker(worker);
  await t?.close();
  await sl?.close();
});

async function shows(selector: string, text: string, timeout = 60_000): Promise<void> {
  await page.locator(selector, { hasText: text }).first().waitFor({ timeout });
}

const status = () => page.getAttribute('#status [data-status]', 'data-status');

it('an archivist makes a list, has it reviewed in two steps (one exclusion sends it back), carries it out and downloads the verklaring', async () => {
  const weg = [await zaak(t, s, { omschrijving: 'Kapvergunning Dorpsstraat' }), await zaak(t, s, { omschrijving: 'Melding overlast' })];
  const uitgezonderd = await zaak(t, s, { omschrijving: 'Bezwaar loopt nog' });
  const bewaard = await zaak(t, s, { resultaattype: s.bewaren, omschrijving: 'Monument' });
  // a document of one zaak only, and one the excluded zaak uses too
  const eigen = await createEio(t, eioBody(s.iot, { titel: 'Aanvraag' }));
  const gedeeld = await createEio(t, eioBody(s.iot, { titel: 'Situatietekening' }));
  const link = (z: Record<string, any>, d: Record<string, any>) =>
    t.call('POST', `${ZRC}/zaakinformatieobjecten`, { zaak: z.url, informatieobject: d.url }, { headers: CRS });
  for (const [z, d] of [
    [weg[0]!, eigen],
    [weg[1]!, gedeeld],
    [uitgezonderd, gedeeld],
  ] as const)
    expect((await link(z, d)).statusCode).toBe(201);

  await loginInBrowser(page, base, '/admin/vernietigingslijsten/instellingen', 'archivaris');
  expect(await page.getAttribute('nav a[aria-current=page]', 'href')).toBe('/admin/vernietigingslijsten');

  // the settings: a zaak of a zaaktype that does not only keep is refused with its reason; then two steps are stored
  await page.fill('#stappen', 'recordmanager\narchivaris: archivaris');
  await page.fill('#verklaringZaak', uitgezonderd.url as string);
  await page.fill('#verklaringInformatieobjecttype', s.iot);
  await page.click('#instellingen-form button[type=submit]');
  await shows('.errors', 'verklaringZaak');
  expect(await page.inputValue('#stappen')).toBe('recordmanager\narchivaris: archivaris');
  await page.fill('#verklaringZaak', s.verklaringZaak);
  await page.click('#instellingen-form button[type=submit]');
  await page.waitForURL(`${base}/admin/vernietigingslijsten/instellingen?gedaan=instellingen`);
  expect((await t.call('GET', `${LIJSTEN}/instellingen`)).json()).toMatchObject({
    stappen: [
      { naam: 'recordmanager', beoordelaars: [] },
      { naam: 'archivaris', beoordelaars: ['archivaris'] },
    ],
    verklaringZaak: s.verklaringZaak,
  });

  // a selection that finds nothing is a clean refusal, nothing made
  await page.goto(`${base}/admin/vernietigingslijsten`);
  await page.fill('#naam', 'Te vroeg');
  await page.fill('#datum', '2000-01-01');
  await page.click('#maak-form button[type=submit]');
  await shows('.errors', 'selectie');
  expect((await t.call('GET', LIJSTEN)).json().count).toBe(0);

  // made from a selection: the three zaken whose date passed, not the one kept for good
  await page.fill('#naam', 'Vernietiging 2026');
  await page.fill('#datum', new Date().toISOString().slice(0, 10));
  await page.click('#maak-form button[type=submit]');
  await page.waitForURL(/\/admin\/vernietigingslijsten\/[0-9a-f-]{36}\?gedaan=gemaakt/);
  const lijst = page.url().split('/').pop()!.split('?')[0]!;
  expect(await status()).toBe('nieuw');
  for (const z of [...weg, uitgezonderd]) await shows(`#zaken tr[data-zaak="${z.url}"] td`, z.identificatie as string);
  expect(await page.locator(`#zaken tr[data-zaak="${bewaard.url}"]`).count()).toBe(0);

  await page.click('#indienen');
  await page.waitForURL(`${base}/admin/vernietigingslijsten/${lijst}?gedaan=ingediend`);
  expect(await status()).toBe('ter_beoordeling');
  expect(await page.textContent('#stap')).toBe('recordmanager');

  // the first step excludes one zaak with its reason and a new date: the list goes back to the maker
  const rij = page.locator(`#zaken tr[data-zaak="${uitgezonderd.url}"]`);
  await rij.locator('input[type=checkbox]').check();
  await rij.locator('input[name^=reden_]').fill('Bezwaarprocedure loopt nog');
  await rij.locator('input[type=date]').fill('2031-01-01');
  await page.click('#beoordeling-form button[type=submit]');
  await page.waitForURL(`${base}/admin/vernietigingslijsten/${lijst}?gedaan=aangepast`);
  expect(await status()).toBe('teruggestuurd');
  await shows(`#zaken tr[data-zaak="${uitgezonderd.url}"] .uitzondering`, 'Bezwaarprocedure loopt nog');
  await shows(`#zaken tr[data-zaak="${uitgezonderd.url}"] .uitzondering`, '2031-01-01');
  await shows('#beoordelingen td', '1 uitgezonderd');
  expect((await t.call('GET', uitgezonderd.url as string, undefined, { headers: CRS })).json().archiefactiedatum).toBe('2031-01-01');

  // submitted again, approved by both steps
  await page.click('#indienen');
  await page.waitForURL(`${base}/admin/vernietigingslijsten/${lijst}?gedaan=ingediend`);
  // a second tab still showing the first step, whose approval comes after the first step was approved: refused, it
  // does not approve the second step in its place
  const oud = await page.context().newPage();
  oud.on('dialog', (d) => void d.accept());
  oud.setDefaultTimeout(90_000);
  await oud.goto(`${base}/admin/vernietigingslijsten/${lijst}`);
  for (const stap of ['recordmanager', 'archivaris']) {
    expect(await page.textContent('#stap')).toBe(stap);
    await page.click('#goedkeuren');
    await page.waitForURL(`${base}/admin/vernietigingslijsten/${lijst}?gedaan=goedgekeurd`);
    if (stap !== 'recordmanager') continue;
    await oud.click('#goedkeuren');
    await oud.locator('.errors', { hasText: 'stap' }).waitFor();
    expect((await t.call('GET', `${LIJSTEN}/${lijst}`)).json()).toMatchObject({ status: 'ter_beoordeling', stap: 'archivaris' });
    await oud.close();
  }
  expect(await status()).toBe('goedgekeurd');
  await page.screenshot({ path: join(SHOTS, 'vernietigingslijst-goedgekeurd.png'), fullPage: true });

  // carried out: the page follows it (it reloads itself) until it is done
  await page.click('#uitvoeren');
  await page.waitForURL(`${base}/admin/vernietigingslijsten/${lijst}?gedaan=gestart`);
  await page.locator('#status [data-status=uitgevoerd]').waitFor({ timeout: 120_000 });
  for (const z of weg) await shows(`#zaken tr[data-zaak="${z.url}"] [data-status]`, 'vernietigd');
  await shows('#tellingen [data-telling=vernietigd]', '2 vernietigd');
  await shows(`#zaken tr[data-zaak="${weg[0]!.url}"] .verslag`, '1 documenten');
  await shows(`#zaken tr[data-zaak="${weg[1]!.url}"] .verslag`, gedeeld.url as string);
  expect((await t.call('GET', eigen.url as string)).statusCode).toBe(404);
  expect((await t.call('GET', gedeeld.url as string)).statusCode).toBe(200);
  expect(await page.locator('.notice').count()).toBe(0);
  await page.screenshot({ path: join(SHOTS, 'vernietigingslijst-uitgevoerd.png'), fullPage: true });
  for (const z of weg) expect((await t.call('GET', z.url as string, undefined, { headers: CRS })).statusCode).toBe(404);
  for (const z of [uitgezonderd, bewaard]) expect((await t.call('GET', z.url as string, undefined, { headers: CRS })).statusCode).toBe(200);

  // the verklaring, downloaded with the session as the links give it
  const pdf = await page.request.get(new URL((await page.getAttribute('#verklaring-pdf', 'href'))!, base).toString());
  expect(pdf.status()).toBe(200);
  expect(pdf.headers()['content-type']).toBe('application/pdf');
  expect((await pdf.body()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const csv = await page.request.get(new URL((await page.getAttribute('#verklaring-csv', 'href'))!, base).toString());
  expect(csv.status()).toBe(200);
  const text = await csv.text();
  for (const z of weg) expect(text).toContain(`"${z.identificatie}"`);
  expect(text).not.toContain(`"${uitgezonderd.identificatie}"`);
  expect(text).toContain('"Vernietiging 2026"');
  // and kept as documents in the zaak the settings name
  const kept = (await t.call('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(s.verklaringZaak)}`)).json();
  expect(kept).toHaveLength(2);
  expect(elsewhere).toEqual([]);
});

it("keeps an organisation's lists its own on the screens: another's administrator finds none, and a form without the session's token changes nothing", async () => {
  const lijst = ((await t.call('GET', LIJSTEN)).json().results as { uuid: string; status: string }[])[0]!;
  expect(lijst.status).toBe('uitgevoerd');
  const B = '111222333';
  expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: B, naam: 'Gemeente B' })).statusCode).toBe(201);
  expect(await new AdminUsers(t.mongo.db).create('beheer-b', PASSWORD, B)).toBe(true);
  const b = new AdminBrowser(t);
  expect((await b.login('beheer-b', PASSWORD)).statusCode).toBe(303);
  const overzicht = await b.get('/admin/vernietigingslijsten');
  expect(overzicht.statusCode).toBe(200);
  expect(overzicht.body).toContain('Geen vernietigingslijsten.');
  expect(overzicht.body).not.toContain(lijst.uuid);
  expect((await b.get(`/admin/vernietigingslijsten/${lijst.uuid}`)).statusCode).toBe(404);
  for (const actie of ['indienen', 'goedkeuren', 'uitvoeren', 'stoppen', 'verwijderen'])
    expect([actie, (await b.post(`/admin/vernietigingslijsten/${lijst.uuid}/${actie}`)).statusCode]).toEqual([actie, 404]);
  const zonderToken = await b.post('/admin/vernietigingslijsten', { _csrf: null, naam: 'Zonder token', datum: '2030-01-01' });
  expect(zonderToken.statusCode).toBe(403);
  expect((await t.call('GET', LIJSTEN, undefined, { headers: { 'zgw-tenant': B } })).json().count).toBe(0);
  // the organisation's own list is as it was
  expect((await t.call('GET', `${LIJSTEN}/${lijst.uuid}`)).json().status).toBe('uitgevoerd');
});

it('lets a reviewer exclude zaken of other pages of a long list in the same review', async () => {
  const zaken: Record<string, any>[] = [];
  for (let i = 0; i < 11; i++) zaken.push(...(await Promise.all(Array.from({ length: 10 }, () => zaak(t, s, { omschrijving: 'Lange lijst' })))));
  const made = await t.call('POST', LIJSTEN, { naam: 'Lange lijst', zaken: zaken.map((z) => z.url) });
  expect(made.statusCode).toBe(201);
  const lijst = made.json().uuid as string;
  expect((await t.call('POST', `${LIJSTEN}/${lijst}/indienen`)).statusCode).toBe(200);

  await page.goto(`${base}/admin/vernietigingslijsten/${lijst}`);
  await shows('#beoordeling-form p.muted', 'andere pagina');
  const opPagina = await page.locator('#zaken tr[data-zaak]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-zaak')));
  expect(opPagina).toHaveLength(100);
  const hier = zaken.find((z) => opPagina.includes(z.url))!;
  const elders = zaken.find((z) => !opPagina.includes(z.url))!;
  const rij = page.locator(`#zaken tr[data-zaak="${hier.url}"]`);
  await rij.locator('input[type=checkbox]').check();
  await rij.locator('input[name^=reden_]').fill('Dossier opgevraagd');
  await page.fill('#meer', `${elders.url}; Nog in gebruik bij de rechtbank; 2032-05-01`);
  await page.click('#beoordeling-form button[type=submit]');
  await page.waitForURL(`${base}/admin/vernietigingslijsten/${lijst}?gedaan=aangepast`);
  const uit = (await t.call('GET', `${LIJSTEN}/${lijst}/zaken?status=uitgezonderd`)).json();
  expect(new Set(uit.results.map((i: { zaak: string }) => i.zaak))).toEqual(new Set([hier.url, elders.url]));
  expect(uit.results.find((i: { zaak: string }) => i.zaak === elders.url).uitzondering).toMatchObject({ reden: 'Nog in gebruik bij de rechtbank' });
  expect((await t.call('GET', elders.url as string, undefined, { headers: CRS })).json().archiefactiedatum).toBe('2032-05-01');
});
