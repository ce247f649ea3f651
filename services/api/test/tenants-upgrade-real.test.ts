import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TENANT_FIELD } from '@zgw/shared';
import { AdminBrowser } from './admin-ui.helpers';
import { startApp, token, type TestApp } from './harness';
import { freePort, LocalStore, needsJava, storeHome } from './local-store.helpers';
import { CRS, ZRC } from './zaken.fixtures';

/**
 * The upgrade to tenants on a data folder the build before tenants wrote (fixtures/pre-tenants-store.tgz, made by
 * scripts/fixtures/pre-tenants-store.js with that build's own store and API): this build's store reads it, the API
 * makes it the default tenant's at its first start, and every client, administrator, zaak, document and abonnement
 * works as before.
 */
interface Manifest {
  db: string;
  piiKeys: string;
  client: { id: string; secret: string };
  second: { id: string; secret: string };
  admin: { user: string; password: string };
  zaaktype: string;
  abonnement: string;
  zaken: { url: string; identificatie: string; document: string; inhoud: string }[];
  bsn: string;
}

let store: LocalStore;
let t: TestApp;
let m: Manifest;

beforeAll(async () => {
  needsJava();
  const dir = mkdtempSync(join(tmpdir(), 'zgw-pre-tenants-'));
  execFileSync('tar', ['-xzf', join(__dirname, 'fixtures', 'pre-tenants-store.tgz'), '-C', dir]);
  m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  store = new LocalStore(storeHome(), await freePort(), join(dir, 'data'));
  await store.start();
  t = await startApp({ MONGODB_URL: store.url, MONGODB_DB: m.db, ZGW_PII_KEYS: m.piiKeys });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await store?.stop('SIGTERM');
  store?.cleanup();
});

it("keeps every client, zaak, document and abonnement of an installation from before tenants, as the default tenant's", async () => {
  const old = token(m.client.id, m.client.secret);
  const list = await t.call('GET', `${ZRC}/zaken`, undefined, { token: old, headers: CRS });
  expect(list.statusCode).toBe(200);
  expect(
    list
      .json()
      .results.map((z: { identificatie: string }) => z.identificatie)
      .sort(),
  ).toEqual(['OUD-1', 'OUD-2', 'OUD-3']);
  for (const zaak of m.zaken) {
    expect((await t.call('GET', zaak.url, undefined, { token: old, headers: CRS })).json().identificatie).toBe(zaak.identificatie);
    const download = await t.call('GET', `${zaak.document}/download`, undefined, { token: old });
    expect(download.body).toBe(zaak.inhoud);
  }
  // the sealed BSN still finds its zaken
  const found = await t.call(
    'POST',
    `${ZRC}/zaken/_zoek`,
    { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: m.bsn },
    { token: old, headers: CRS },
  );
  expect(found.json().count).toBe(3);
  expect((await t.call('GET', m.abonnement, undefined, { token: old })).statusCode).toBe(200);
  // the client registered over the admin endpoint without a tenant is the default tenant's, and its token is taken
  const clients = (await t.call('GET', '/admin/api/v1/credentials', undefined, { token: old })).json() as { identifier: string; tenant: string }[];
  expect(clients.find((c) => c.identifier === m.second.id)?.tenant).toBe(t.deps.tenants.defaultTenant);
  const second = await t.call('GET', m.zaaktype, undefined, { token: token(m.second.id, m.second.secret) });
  expect(second.json().code).not.toBe('jwt-invalid'); // known (it has no applicatie, so no rights)
  // everything stored is the default tenant's, and the unique identificatie holds within it
  expect(
    await t.mongo.client
      .db(m.db)
      .collection('zaken')
      .countDocuments({ [TENANT_FIELD]: { $ne: t.deps.tenants.defaultTenant } }),
  ).toBe(0);
  const again = await t.call(
    'POST',
    `${ZRC}/zaken`,
    {
      identificatie: 'OUD-1',
      bronorganisatie: '002220647',
      verantwoordelijkeOrganisatie: '002220647',
      zaaktype: m.zaaktype,
      startdatum: '2024-03-01',
    },
    { token: old, headers: CRS },
  );
  expect(again.statusCode).toBe(400);
  // the administrator of the screens logs in and is a platform administrator
  const browser = new AdminBrowser(t);
  expect((await browser.login(m.admin.user, m.admin.password)).statusCode).toBe(303);
  expect((await browser.get('/admin/organisaties')).body).toContain('standaard');
});
