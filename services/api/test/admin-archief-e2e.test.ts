/**
 * The Archief screen end to end in headless Chromium (as admin-e2e.test.ts; ZGW_CHROMIUM names the browser): an
 * archivist sees a closed zaak without an archiefnominatie on the worklist, puts a zaak on legal hold with its reason
 * through the form, sees it listed, and lifts the hold.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loginInBrowser, openAdminBrowser, PASSWORD, SHOTS } from './admin-ui.helpers';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';

jest.setTimeout(240_000);

let t: TestApp;
let sl: Referentielijsten;
let base: string;
let browser: Browser;
let page: Page;
const elsewhere: string[] = [];

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url, ADMIN_INITIAL_USER: 'archivaris', ADMIN_INITIAL_PASSWORD: PASSWORD });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ browser, page } = await openAdminBrowser(base, elsewhere, { acceptDialogs: true }));
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await sl?.close();
});

async function shows(selector: string, text: string): Promise<void> {
  await page.locator(selector, { hasText: text }).first().waitFor({ timeout: 15_000 });
}

it('an archivist sees the worklist, sets a legal hold with its reason through the screen, sees it listed, and lifts it', async () => {
  const setup = await zaaktypeMetOnderdelen(t, sl);
  // a zaak closed without a resultaat: on the worklist; another to put on hold
  const zonder = await createZ(t, 'zaken', zaakBody(setup.zaaktype));
  await createZ(t, 'statussen', { zaak: zonder.url, statustype: setup.statustypen.eind, datumStatusGezet: '2024-03-05T10:00:00Z' });
  const vast = await createZ(t, 'zaken', zaakBody(setup.zaaktype));

  await loginInBrowser(page, base, '/admin/archief', 'archivaris');
  expect(await page.textContent('h1')).toBe('Archief');
  expect(await page.getAttribute('nav a[aria-current=page]', 'href')).toBe('/admin/archief');
  await shows('#werklijst td', zonder.identificatie as string);
  expect(await page.textContent('#werklijst [data-reden]')).toContain('geen resultaat');
  await shows('#bewaring td', 'Geen zaken onder juridische bewaring.');

  // a reason left empty is refused by the endpoint, and nothing is set
  await page.fill('#zaak', vast.url as string);
  await page.fill('#reden', '   ');
  await page.$eval('#reden', (el) => el.removeAttribute('required'));
  await page.click('#bewaring-form button[type=submit]');
  await shows('.errors', 'Reden');
  expect(await page.inputValue('#zaak')).toBe(vast.url);

  await page.fill('#reden', 'Bezwaarprocedure loopt; stukken nodig voor de rechter.');
  await page.click('#bewaring-form button[type=submit]');
  await page.waitForURL(`${base}/admin/archief?gedaan=gezet`);
  await shows('.notice', 'juridische bewaring');
  await shows(`#bewaring tr[data-zaak="${vast.url}"] .reden`, 'Bezwaarprocedure loopt; stukken nodig voor de rechter.');
  await shows(`#bewaring tr[data-zaak="${vast.url}"] td`, 'archivaris');
  await page.screenshot({ path: join(SHOTS, 'archief.png'), fullPage: true });
  // the admin API says the same
  const listed = (await t.call('GET', '/admin/api/v1/archief/bewaring')).json();
  expect(listed.results).toEqual([expect.objectContaining({ zaak: vast.url, gezetDoor: 'beheer:archivaris' })]);

  await page.click(`#bewaring tr[data-zaak="${vast.url}"] button`);
  await page.waitForURL(`${base}/admin/archief?gedaan=opgeheven`);
  await shows('#bewaring td', 'Geen zaken onder juridische bewaring.');
  expect((await t.call('GET', '/admin/api/v1/archief/bewaring')).json().count).toBe(0);
  expect(elsewhere).toEqual([]);
});
