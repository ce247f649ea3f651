/**
 * The destruction list screens end to end in headless Chromium (as admin-archief-e2e.test.ts; ZGW_CHROMIUM names the
 * browser): an archivist sets two review steps and where the verklaring goes, makes a list from a selection, submits
 * it; the first step excludes a zaak with a reason and a new archiefactiedatum (back to the maker), the list is
 * submitted again and approved in both steps.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PASSWORD, totpCode } from './admin-ui.helpers';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import type { TestApp } from './harness';
import { LogLines, startListeningApp } from './overdrachten.fixtures';
import { CRS } from './zaken.fixtures';
import { LIJSTEN, opzet, zaak, type Opzet } from './vernietigingslijsten.fixtures';

jest.setTimeout(300_000);

const SHOTS = join(__dirname, '..', '..', '..', 'reports', 'e2e');
const BROWSER = process.env.ZGW_CHROMIUM || '/usr/bin/chromium';

let t: TestApp;
let sl: Referentielijsten;
let base: string;
let browser: Browser;
let page: Page;
let s: Opzet;
const logs = new LogLines();
const elsewhere: string[] = [];

beforeAll(async () => {
  if (!existsSync(BROWSER)) throw new Error(`no browser at ${BROWSER}: run bash scripts/browser.sh (scripts/test.sh does)`);
  mkdirSync(SHOTS, { recursive: true });
  sl = await startReferentielijsten();
  t = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url, ADMIN_INITIAL_USER: 'archivaris', ADMIN_INITIAL_PASSWORD: PASSWORD }, logs);
  base = t.config.PUBLIC_BASE_URL;
  s = await opzet(t, sl);
  browser = await chromium.launch({ executablePath: BROWSER, headless: true, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`)) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  page = await context.newPage();
  // the machine is shared (other processes, a worker bundling its workflows): waits get room, nothing is timed
  page.setDefaultTimeout(90_000);
  page.on('dialog', (d) => void d.accept());
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await sl?.close();
});

async function shows(selector: string, text: string, timeout = 60_000): Promise<void> {
  await page.locator(selector, { hasText: text }).first().waitFor({ timeout });
}

const status = () => page.getAttribute('#status [data-status]', 'data-status');

it('an archivist makes a list and has it reviewed in two steps, one exclusion with a reason and a new date sending it back', async () => {
  const weg = [await zaak(t, s, { omschrijving: 'Kapvergunning Dorpsstraat' }), await zaak(t, s, { omschrijving: 'Melding overlast' })];
  const uitgezonderd = await zaak(t, s, { omschrijving: 'Bezwaar loopt nog' });
  const bewaard = await zaak(t, s, { resultaattype: s.bewaren, omschrijving: 'Monument' });

  await page.goto(`${base}/admin/vernietigingslijsten/instellingen`);
  await page.fill('#naam', 'archivaris');
  await page.fill('#wachtwoord', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/admin/login/tweede-factor`);
  const seed = (await page.textContent('#totp-secret'))!;
  await page.fill('#code', totpCode(seed, Math.floor(Date.now() / 30_000)));
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/admin/vernietigingslijsten/instellingen`);
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
  for (const stap of ['recordmanager', 'archivaris']) {
    expect(await page.textContent('#stap')).toBe(stap);
    await page.click('#goedkeuren');
    await page.waitForURL(`${base}/admin/vernietigingslijsten/${lijst}?gedaan=goedgekeurd`);
  }
  expect(await status()).toBe('goedgekeurd');
  await page.screenshot({ path: join(SHOTS, 'vernietigingslijst-goedgekeurd.png'), fullPage: true });

  expect(elsewhere).toEqual([]);
});
