/**
 * The Importen screen end to end in headless Chromium (as admin-e2e.test.ts; ZGW_CHROMIUM names the browser): a
 * platform administrator starts a run with the source's pace (requests at once, the timeout of one) and only reporting
 * what the source deleted, and finds these on the run's page and in the admin endpoint; a number the endpoint refuses
 * is named by its field and the form keeps what was typed; a run's page reports the cut-over (per collection, and each
 * object with its URL at the source and ours and what became of it) and how the source answered.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Browser, Page } from 'playwright-core';
import { IMPORTEN_COLLECTION, platformDb, type StoredImport } from '@zgw/shared';
import { loginInBrowser, openAdminBrowser, PASSWORD, SHOTS } from './admin-ui.helpers';
import { startApp, type TestApp } from './harness';

jest.setTimeout(240_000);

/** A source that answers nothing (the discard port): the run's workflow waits, no worker serves its task queue. */
const BRON = 'http://127.0.0.1:9';

let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
const elsewhere: string[] = [];
const workflows: string[] = [];

beforeAll(async () => {
  t = await startApp({ ADMIN_INITIAL_USER: 'beheerder', ADMIN_INITIAL_PASSWORD: PASSWORD, TRANSFER_TASK_QUEUE: `test-importen-${randomUUID()}` });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ browser, page } = await openAdminBrowser(base, elsewhere));
});

afterAll(async () => {
  if (workflows.length) {
    const connection = await Connection.connect({ address: t.config.TEMPORAL_ADDRESS });
    const temporal = new Client({ connection });
    for (const id of workflows) await temporal.workflow.getHandle(id).terminate('het einde van de test');
    await connection.close();
  }
  await browser?.close();
  await t?.close();
});

async function shows(selector: string, text: string): Promise<void> {
  await page.locator(selector, { hasText: text }).first().waitFor({ timeout: 15_000 });
}

const login = () => loginInBrowser(page, base, '/admin/importen', 'beheerder');

it("starts a run with the source's pace and only reporting what the source deleted; a refused number is named by its field", async () => {
  await login();
  expect(await page.textContent('h1')).toBe('Importen');
  // the default pace: 4 at once, the timeout following the source
  expect(await page.inputValue('input[name=gelijktijdig]')).toBe('4');
  expect(await page.inputValue('input[name=timeout]')).toBe('');
  expect(await page.isChecked('input[name=verwijderen]')).toBe(true);

  await page.fill('input[name=bron]', BRON);
  await page.fill('input[name=clientId]', 'bron');
  await page.fill('input[name=secret]', 'bron-geheim');
  // more at once than the endpoint allows (the browser's own check off): refused, named, what was typed kept
  await page.$eval('input[name=gelijktijdig]', (el) => el.removeAttribute('max'));
  await page.fill('input[name=gelijktijdig]', '65');
  await page.fill('input[name=timeout]', '30');
  await page.click('form[action="/admin/importen"] button[type=submit]');
  await shows('.errors', 'gelijktijdig');
  expect(await page.inputValue('input[name=gelijktijdig]')).toBe('65');
  expect(await page.inputValue('input[name=timeout]')).toBe('30');
  expect((await t.call('GET', '/admin/api/v1/importen')).json()).toEqual([]);

  await page.fill('input[name=secret]', 'bron-geheim');
  await page.fill('input[name=gelijktijdig]', '2');
  await page.uncheck('input[name=verwijderen]');
  await page.uncheck('input[name=dryRun]');
  await page.click('form[action="/admin/importen"] button[type=submit]');
  await page.waitForURL(/\/admin\/importen\/[0-9a-f-]{36}\?gedaan=gestart$/);
  const id = /importen\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  workflows.push(`import-${id}`);
  await shows('#gelijktijdig', '2');
  await shows('#timeout', 'time-out 30 s');
  await shows('#verwijderen', 'nee, alleen melden');
  // the endpoint has what the form asked
  const run = (await t.call('GET', `/admin/api/v1/importen/${id}`)).json();
  expect(run).toEqual(expect.objectContaining({ bron: BRON, dryRun: false, gelijktijdig: 2, timeoutSeconden: 30, verwijderen: false }));
  expect(elsewhere).toEqual([]);
});

it("a run's page reports the cut-over per collection and per object, and how the source answered", async () => {
  const now = new Date();
  const vorige = randomUUID();
  const hier = `${t.config.PUBLIC_BASE_URL}/zaken/api/v1/zaken/${randomUUID()}`;
  const bronZaak = `${BRON}/zaken/api/v1/zaken/${randomUUID()}`;
  const bronDoc = `${BRON}/documenten/api/v1/enkelvoudiginformatieobjecten/${randomUUID()}`;
  const hierDoc = `${t.config.PUBLIC_BASE_URL}/documenten/api/v1/enkelvoudiginformatieobjecten/${randomUUID()}`;
  const run = (id: string, verwijderen: boolean): StoredImport => ({
    _id: id,
    tenant: t.config.ZGW_DEFAULT_TENANT,
    bron: BRON,
    apis: {},
    clientId: 'bron',
    secret: 'verzegeld',
    dryRun: false,
    gelijktijdig: 3,
    tempo: { verzoeken: 5321, verzoekenPerSeconde: 12.5, p95Ms: 340, timeoutMs: 10_000, gelijktijdig: 3, wachtend: 2, bijgewerkt: now },
    verwijderen,
    opruiming: {
      vorigeRun: vorige,
      verwijderen,
      aantallen: {
        'zaken/zaken': { verwijderd: verwijderen ? 1 : 0, behouden: 0, teVerwijderen: verwijderen ? 0 : 1 },
        'documenten/enkelvoudiginformatieobjecten': { verwijderd: 0, behouden: 1, teVerwijderen: 0 },
      },
      objecten: [
        { soort: 'zaken/zaken', bron: bronZaak, hier, uitkomst: verwijderen ? 'verwijderd' : 'te-verwijderen' },
        { soort: 'documenten/enkelvoudiginformatieobjecten', bron: bronDoc, hier: hierDoc, uitkomst: 'behouden', reden: 'een zaak hier koppelt het' },
      ],
    },
    status: 'afgerond',
    aangemaakt: now,
    bijgewerkt: now,
    door: 'beheer:beheerder',
  });
  const [weg, gemeld] = [randomUUID(), randomUUID()];
  await platformDb(t.mongo.db)
    .collection<StoredImport>(IMPORTEN_COLLECTION)
    .insertMany([run(weg, true), run(gemeld, false)]);

  await page.goto(`${base}/admin/importen/${weg}`);
  await shows('#opruiming', 'is hier verwijderd');
  expect(await page.getAttribute('#opruiming a', 'href')).toBe(`/admin/importen/${vorige}`);
  await shows('#opruiming-aantallen tr', 'zaken/zaken');
  const rij = (soort: string) => page.locator('#opruiming-aantallen tr', { hasText: soort }).first().locator('td');
  expect(await rij('zaken/zaken').allTextContents()).toEqual(['zaken/zaken', '1', '0', '0']);
  expect(await rij('documenten/enkelvoudiginformatieobjecten').allTextContents()).toEqual([
    'documenten/enkelvoudiginformatieobjecten',
    '0',
    '1',
    '0',
  ]);
  const object = (url: string) => page.locator('#opruiming-objecten tr', { hasText: url }).first().locator('td');
  expect(await object(bronZaak).allTextContents()).toEqual(['zaken/zaken', bronZaak, hier, 'verwijderd']);
  expect(await object(bronDoc).allTextContents()).toEqual([
    'documenten/enkelvoudiginformatieobjecten',
    bronDoc,
    hierDoc,
    'behouden: een zaak hier koppelt het',
  ]);
  await shows('#tempo', '12.5 verzoeken/s, p95 340 ms, 2 wachtend; 5321 verzoeken in totaal');
  await shows('#gelijktijdig', '3');
  await shows('#timeout', 'nu 10 s');
  await page.screenshot({ path: join(SHOTS, 'importen-opruiming.png'), fullPage: true });

  await page.goto(`${base}/admin/importen/${gemeld}`);
  await shows('#opruiming', 'is alleen gemeld');
  expect(await object(bronZaak).allTextContents()).toEqual(['zaken/zaken', bronZaak, hier, 'te verwijderen']);
  await shows('#verwijderen', 'nee, alleen melden');
  expect(elsewhere).toEqual([]);
});
