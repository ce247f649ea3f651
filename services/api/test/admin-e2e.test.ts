/**
 * The admin screens end to end in headless Chromium (Debian's `chromium`, driven by playwright-core): a real API
 * listening on a port, a person's clicks and keystrokes, and a screenshot of every screen in reports/e2e/.
 * scripts/test.sh installs the browser when it is missing (scripts/browser.sh) and passes its path in ZGW_CHROMIUM.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { NRC_DELIVERIES, NRC_NOTIFICATIES, NRC_STATUS, type DeliveryDoc, type KeptNotificatie, type StatusDoc } from '@zgw/shared';
import { openAdminBrowser, PASSWORD, SHOTS, totpCode } from './admin-ui.helpers';
import { startApp, token, type TestApp } from './harness';

jest.setTimeout(240_000);

let t: TestApp;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: Server;
/** Requests the pages made to anywhere but the API under test (there must be none). */
const elsewhere: string[] = [];

const shot = async (name: string, fullPage = true) => {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  t = await startApp({ ADMIN_INITIAL_USER: 'beheerder', ADMIN_INITIAL_PASSWORD: PASSWORD });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ browser, context, page } = await openAdminBrowser(base, elsewhere, { acceptDialogs: true }));
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await new Promise((r) => receiver?.close(r));
});

/** An abonnement as the notifier leaves it after a week of failed deliveries: locked, with its last attempts. */
/**
 * Waits until the page shows an element matching `selector` with `text` (a click's navigation may still be on its
 * way, and the page before it may hold the same element with an older text); fails when none appears.
 */
async function shows(selector: string, text: string): Promise<void> {
  await page.locator(selector, { hasText: text }).first().waitFor({ timeout: 15_000 });
}

async function lockedAbonnement(): Promise<string> {
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
  const res = await t.call('POST', '/notificaties/api/v1/abonnement', { callbackUrl, auth: 'Bearer abc', kanalen: [{ naam: 'zaken', filters: {} }] });
  expect(res.statusCode).toBe(201);
  const uuid = res.json().url.split('/').pop() as string;
  const week = 7 * 24 * 3_600_000;
  const now = Date.now();
  const attempt = (ago: number) => ({
    at: new Date(now - ago),
    notificatie: 'e2e-notificatie-1',
    kanaal: 'zaken',
    status: 503,
    durationMs: 41,
    ok: false,
    error: 'HTTP 503',
  });
  await t.mongo.db.collection<StatusDoc>(NRC_STATUS).insertOne({
    _id: uuid,
    state: 'locked',
    failingSince: new Date(now - week - 60_000),
    consecutiveFailures: 52,
    failedAttempts: 52,
    delivered: 3,
    lastSuccessAt: new Date(now - week - 120_000),
    lastFailureAt: new Date(now - 60_000),
    nextAttemptAt: null,
    lockedAt: new Date(now - 30_000),
    unlockedAt: null,
    unlockedBy: null,
    lastAttempts: [attempt(60_000), attempt(3_600_000), attempt(7_200_000)],
  });
  const message = {
    kanaal: 'zaken',
    hoofdObject: `${base}/zaken/api/v1/zaken/1`,
    resource: 'zaak',
    resourceUrl: `${base}/zaken/api/v1/zaken/1`,
    actie: 'create',
    aanmaakdatum: new Date(now - week).toISOString(),
    kenmerken: {},
  };
  await t.mongo.db
    .collection<KeptNotificatie>(NRC_NOTIFICATIES)
    .insertOne({ _id: 'e2e-notificatie-1', kanaal: 'zaken', message, receivedAt: new Date(now - week) });
  await t.mongo.db.collection<DeliveryDoc>(NRC_DELIVERIES).insertOne({
    _id: `${uuid}:e2e-notificatie-1`,
    abonnement: uuid,
    notificatie: 'e2e-notificatie-1',
    kanaal: 'zaken',
    state: 'failed',
    createdAt: new Date(now - week),
    tries: 52,
    doneAt: new Date(now - 30_000),
    attempts: [attempt(60_000)],
  });
  return uuid;
}

it('an administrator logs in, manages applicaties, audit exclusions and abonnementen, is protected against CSRF, reads the API reference and logs out', async () => {
  // Login (the first administrator, from ADMIN_INITIAL_PASSWORD).
  await page.goto(`${base}/admin/`);
  expect(page.url()).toBe(`${base}/admin/login?next=%2Fadmin%2F`);
  await shot('01-login');
  await page.fill('#naam', 'beheerder');
  await page.fill('#wachtwoord', 'wrong password!!');
  await page.click('button[type=submit]');
  await shows('.errors', 'Onjuiste naam of wachtwoord.');
  await page.fill('#naam', 'beheerder');
  await page.fill('#wachtwoord', PASSWORD);
  await page.click('button[type=submit]');
  // The first login sets up the second factor: a QR code (an image the page may show), the key, the recovery codes.
  await page.waitForURL(`${base}/admin/login/tweede-factor`);
  expect(await page.textContent('h1')).toBe('Tweede factor instellen');
  const qr = await page.$eval('img.qr', (img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth);
  expect(qr).toBeGreaterThan(0); // the QR code image loaded (allowed by the pages' CSP)
  expect(await page.$$eval('.recovery-codes li', (li) => li.length)).toBe(10);
  await shot('01b-tweede-factor');
  const seed = (await page.textContent('#totp-secret'))!;
  await page.fill('#code', totpCode(seed, Math.floor(Date.now() / 30_000)));
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/admin/`);
  expect(await page.textContent('h1')).toBe('Beheer');
  const cookies = await context.cookies();
  expect(cookies.find((c) => c.name === 'zgw_beheer')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
  await shot('02-overzicht');

  // Applicaties: a new one, with an autorisatie for documents and the publication checkbox.
  await page.click('nav >> text=Applicaties');
  await page.waitForURL(`${base}/admin/applicaties`);
  await shot('03-applicaties');
  await page.click('text=Nieuwe applicatie');
  await page.fill('#label', 'Publicatieportaal');
  await page.fill('#clientIds', 'publicatieportaal');
  await page.check('#alleenIsGereedVoorPublicatie');
  await page.selectOption('#a0-component', 'drc');
  // The script shows the scopes of the chosen component only.
  expect(await page.isVisible('.scopes[data-for="drc"]')).toBe(true);
  expect(await page.isVisible('.scopes[data-for="zrc"]')).toBe(false);
  await page.check('.scopes[data-for="drc"] input[value="documenten.lezen"]');
  const iot = `${base}/catalogi/api/v1/informatieobjecttypen/3f4bd4cd-8c9b-4c58-9a3a-2d3e4f5a6b7c`;
  await page.fill('#a0-type', iot);
  await page.selectOption('#a0-max', 'openbaar');
  await shot('04-applicatie-nieuw');
  await page.click('button[value=opslaan]');
  await page.waitForSelector('[data-secret]');
  const secret = (await page.textContent('[data-secret]'))!.trim();
  expect(secret.length).toBeGreaterThanOrEqual(24);
  await shot('05-secret-eenmalig');
  const portaal = (await t.call('GET', '/autorisaties/api/v1/applicaties?clientIds=publicatieportaal')).json().results[0];
  expect(portaal).toMatchObject({
    label: 'Publicatieportaal',
    alleenIsGereedVoorPublicatie: true,
    autorisaties: [{ component: 'drc', scopes: ['documenten.lezen'], informatieobjecttype: iot, maxVertrouwelijkheidaanduiding: 'openbaar' }],
  });
  // The secret works, and is not shown again.
  expect(
    (await t.call('GET', '/documenten/api/v1/enkelvoudiginformatieobjecten', undefined, { token: token('publicatieportaal', secret) })).statusCode,
  ).toBe(200);
  await page.click('text=Naar de applicatie');
  expect(await page.content()).not.toContain(secret);

  // Edit: a second scope, and the checkbox off.
  await page.check('.row:first-of-type .scopes[data-for="drc"] input[value="documenten.aanmaken"]');
  await page.uncheck('#alleenIsGereedVoorPublicatie');
  await page.click('button[value=opslaan]');
  await shows('.notice', 'De applicatie is opgeslagen.');
  await shot('06-applicatie-bewerkt');
  const edited = (await t.call('GET', portaal.url)).json();
  expect(edited.alleenIsGereedVoorPublicatie).toBe(false);
  expect(edited.autorisaties[0].scopes).toEqual(['documenten.aanmaken', 'documenten.lezen']);

  // Audit exclusions.
  await page.click('nav >> text=Audit');
  await page.fill('#clientIds', 'batch.*\n*-sync');
  await page.click('button:has-text("Opslaan")');
  await shows('.notice', 'De uitzonderingen zijn opgeslagen');
  await shot('07-audit');
  expect((await t.call('GET', '/admin/api/v1/audit/exclusions')).json()).toMatchObject({
    clientIds: ['batch.*', '*-sync'],
    bron: 'beheer',
    updatedBy: 'beheer:beheerder',
  });

  // Abonnementen: a locked one is unlocked, then what it missed is resent.
  const abonnement = await lockedAbonnement();
  await page.click('nav >> text=Abonnementen');
  expect(await page.getAttribute('[data-state]', 'data-state')).toBe('locked');
  await shot('08-abonnementen');
  await page.click(`a[href="/admin/abonnementen/${abonnement}"]`);
  await page.waitForURL(`${base}/admin/abonnementen/${abonnement}`);
  await shows('#status', 'vergrendeld');
  expect(await page.textContent('main')).toContain('HTTP 503');
  await shot('09-abonnement-vergrendeld');
  await page.click('button:has-text("Ontgrendelen")');
  await shows('.notice', 'Het abonnement is ontgrendeld');
  await shows('#status', 'actief');
  expect((await t.call('GET', `/admin/api/v1/notificaties/abonnementen/${abonnement}`)).json()).toMatchObject({
    state: 'active',
    unlockedBy: 'beheer:beheerder',
  });
  await page.click('button:has-text("Opnieuw versturen")');
  await shows('.notice', 'Het opnieuw versturen is aangevraagd');
  const resends = (await t.call('GET', `/admin/api/v1/notificaties/abonnementen/${abonnement}/resends`)).json();
  expect(resends).toMatchObject([{ state: 'requested', requestedBy: 'beheer:beheerder', vanaf: null, tot: null }]);
  await shot('10-abonnement-ontgrendeld');

  // CSRF: a form posted without the session's token is refused and changes nothing.
  const refused = await context.request.post(`${base}/admin/audit`, { form: { clientIds: 'csrf-attack' }, maxRedirects: 0 });
  expect(refused.status()).toBe(403);
  await page.goto(`${base}/admin/audit`);
  await Promise.all([
    page.waitForLoadState('load'),
    // run in the page (a string: the browser's DOM is not among the tests' types)
    page.evaluate(`{
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/admin/audit';
      const input = document.createElement('input');
      input.name = 'clientIds';
      input.value = 'csrf-attack';
      form.appendChild(input);
      document.body.appendChild(form);
      form.submit();
    }`),
  ]);
  await page.waitForSelector('text=CSRF-controle');
  await shot('11-csrf-geweigerd');
  expect((await t.call('GET', '/admin/api/v1/audit/exclusions')).json().clientIds).toEqual(['batch.*', '*-sync']);

  // The API reference, linked from the admin screens.
  await page.goto(`${base}/admin/`);
  await page.click('nav >> text=API-referentie');
  await page.waitForURL(`${base}/api-referentie`);
  await shot('12-api-referentie');
  await page.click('a[href="/api-referentie/zaken"]');
  await page.waitForURL(`${base}/api-referentie/zaken`);
  await page.locator('#op-zaak_list').waitFor();
  await shot('13-api-referentie-zaken', false); // the whole page is some 40,000 pixels high

  // Logout: the session is gone.
  await page.goto(`${base}/admin/`);
  await page.click('button:has-text("Uitloggen")');
  await page.waitForURL(`${base}/admin/login?uit=1`);
  expect(await page.textContent('.notice')).toContain('U bent uitgelogd.');
  await shot('14-uitgelogd');
  await page.goto(`${base}/admin/applicaties`);
  expect(page.url()).toContain('/admin/login');

  // Nothing was loaded from anywhere else.
  expect(elsewhere).toEqual([]);
});
