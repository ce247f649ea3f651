import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TENANT_HEADER } from '@zgw/shared';
import { AdminUsers } from '../src/admin/ui/users';
import { ensureAllRights } from '../src/bootstrap';
import { AdminBrowser, PASSWORD } from './admin-ui.helpers';
import { startApp, token, type TestApp } from './harness';

/**
 * Administration per tenant: an organisation's administrator (a local user bound to its tenant) sees and changes only
 * its own organisation on every admin screen and endpoint; a platform administrator sees every organisation, creates
 * one, and chooses which one the screens manage (the admin endpoints: header Zgw-Tenant).
 */
const A = '123456782';
const B = '111222333';
const ABONNEMENTEN = '/admin/api/v1/notificaties/abonnementen';
const METRICS = 'the token of the metrics';

let t: TestApp;
/** The receiver of the abonnementen (answers every call 204); each tenant's callback has its own path. */
let receiver: Server;
let callback: (rsin: string) => string;
const tokenOf = (rsin: string) => token(`client-${rsin}`, `client-${rsin}-secret`);

beforeAll(async () => {
  receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  callback = (rsin) => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/${rsin}`;
  // (serving several organisations, /metrics wants its token)
  t = await startApp({ ADMIN_INITIAL_USER: 'platform', ADMIN_INITIAL_PASSWORD: PASSWORD, METRICS_TOKEN: METRICS });
  for (const rsin of [A, B]) {
    expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam: `Gemeente ${rsin}` })).statusCode).toBe(201);
    const client = `client-${rsin}`;
    expect((await t.call('POST', '/admin/api/v1/credentials', { identifier: client, secret: `${client}-secret`, tenant: rsin })).statusCode).toBe(
      201,
    );
    await ensureAllRights(t.deps.db, client, rsin, `Applicatie van ${rsin}`);
    const abonnement = await t.call(
      'POST',
      '/notificaties/api/v1/abonnement',
      { callbackUrl: callback(rsin), auth: 'Bearer x', kanalen: [{ naam: 'zaken', filters: {} }] },
      { token: tokenOf(rsin) },
    );
    expect(abonnement.statusCode).toBe(201);
  }
  const users = new AdminUsers(t.mongo.db);
  expect(await users.create('beheer-a', PASSWORD, A)).toBe(true);
  expect(await users.create('beheer-b', PASSWORD, B)).toBe(true);
}, 60_000);
afterAll(async () => {
  await t?.close();
  receiver?.close();
});

const loggedIn = async (name: string) => {
  const b = new AdminBrowser(t);
  expect((await b.login(name, PASSWORD)).statusCode).toBe(303);
  await b.get('/admin/');
  return b;
};

describe('admin screens per tenant', () => {
  it("shows an organisation's administrator only its own applicaties, administrators and no organisations", async () => {
    const b = await loggedIn('beheer-a');
    const home = await b.get('/admin/');
    expect([home.statusCode, home.headers.location]).toEqual([200, undefined]);
    expect(home.body).toContain(`<span class="tenant" title="De organisatie (RSIN) die u beheert">${A}</span>`);
    expect(home.body).not.toContain('/admin/organisaties');
    const list = await b.get('/admin/applicaties');
    expect(list.body).toContain(`Applicatie van ${A}`);
    expect(list.body).not.toContain(`Applicatie van ${B}`);
    expect(list.body).not.toContain('test-admin'); // the default tenant's client is not listed either
    const beheerders = await b.get('/admin/beheerders');
    expect(beheerders.body).toContain('beheer-a');
    expect(beheerders.body).not.toContain('beheer-b');
    expect(beheerders.body).not.toMatch(/<td>platform<\/td>/);
    // another organisation's administrator does not exist for it
    expect((await b.post('/admin/beheerders/beheer-b/tweede-factor')).statusCode).toBe(404);
    expect((await b.get('/admin/organisaties')).statusCode).toBe(403);
    expect((await b.post('/admin/organisaties/beheren', { rsin: B })).statusCode).toBe(403);
  });

  it("refuses an organisation's administrator a client id of another organisation, and never touches that client's secret", async () => {
    const b = await loggedIn('beheer-a');
    await b.get('/admin/applicaties/nieuw');
    const res = await b.post('/admin/applicaties/nieuw', {
      label: 'Overname',
      clientIds: `client-${B}`,
      heeftAlleAutorisaties: '1',
      rows: '0',
      actie: 'opslaan',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(`Client id client-${B} is al in gebruik bij een andere organisatie`);
    // B's client still works with its own secret
    expect((await t.call('GET', '/zaken/api/v1/zaken', undefined, { token: tokenOf(B), headers: { 'Accept-Crs': 'EPSG:4326' } })).statusCode).toBe(
      200,
    );
  });

  it('shows a platform administrator every organisation with its counts, makes one, and manages the one it chooses', async () => {
    const b = await loggedIn('platform');
    const page = await b.get('/admin/organisaties');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`Gemeente ${A}`);
    expect(page.body).toContain(`Gemeente ${B}`);
    const made = await b.post('/admin/organisaties', { rsin: '100000009', naam: 'Waterschap' });
    expect(made.statusCode).toBe(303);
    expect(await t.deps.tenants.get('100000009')).toMatchObject({ naam: 'Waterschap' });
    const bad = await b.post('/admin/organisaties', { rsin: '123456789', naam: 'Fout' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('RSIN:');
    // the screens manage B from now on
    expect((await b.post('/admin/organisaties/beheren', { rsin: B })).statusCode).toBe(303);
    const list = await b.get('/admin/applicaties');
    expect(list.body).toContain(`Applicatie van ${B}`);
    expect(list.body).not.toContain(`Applicatie van ${A}`);
    const abonnementen = await b.get('/admin/abonnementen');
    expect(abonnementen.body).toContain(callback(B));
    expect(abonnementen.body).not.toContain(callback(A));
  });
  it("names an internal route's target organisation on the doelregistratie screen, only one that takes transfers from it", async () => {
    const b = await loggedIn('beheer-a');
    await b.get('/admin/overdrachten/doelregistraties/nieuw');
    const form = {
      naam: 'naar-b',
      route: 'intern',
      rsin: B,
      tenant: B,
      catalogus: 'http://testserver/catalogi/api/v1/catalogussen/00000000-0000-0000-0000-000000000001',
      bron: 'openlaten',
      zaaktypen: 'ZT-A; ZT-B',
    };
    // an unknown organisation, and B until it takes transfers from A: one answer, which does not tell them apart
    const refusal = 'De doelorganisatie neemt geen overdrachten van deze organisatie aan (of is op dit platform niet bekend).';
    const unknown = await b.post('/admin/overdrachten/doelregistraties/nieuw', { ...form, tenant: '100000010' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain(refusal);
    const withoutConsent = await b.post('/admin/overdrachten/doelregistraties/nieuw', form);
    expect(withoutConsent.statusCode).toBe(400);
    expect(withoutConsent.body).toContain(refusal);
    const consent = await t.call('PUT', '/admin/api/v1/overdrachten/instellingen', { accepteertVan: [A] }, { token: tokenOf(B) });
    expect(consent.statusCode).toBe(200);
    expect((await b.post('/admin/overdrachten/doelregistraties/nieuw', form)).statusCode).toBe(303);
    const stored = await t.call('GET', '/admin/api/v1/doelregistraties/naar-b', undefined, { token: tokenOf(A) });
    expect(stored.json()).toMatchObject({ route: 'intern', tenant: B });
    // it is A's: B's administrators do not see it
    expect((await t.call('GET', '/admin/api/v1/doelregistraties/naar-b', undefined, { token: tokenOf(B) })).statusCode).toBe(404);
    const edit = await b.get('/admin/overdrachten/doelregistraties/naar-b');
    expect(edit.body).toContain(`id="tenant" name="tenant" value="${B}"`);
  });
});

describe('admin endpoints per tenant', () => {
  it('let a platform administrator name the tenant (Zgw-Tenant); an organisation gets only its own', async () => {
    const of = async (headers: Record<string, string>, tok?: string) => {
      const res = await t.call('GET', ABONNEMENTEN, undefined, { headers, ...(tok ? { token: tok } : {}) });
      return { status: res.statusCode, body: res.json() };
    };
    const inA = await of({ [TENANT_HEADER]: A });
    expect(inA.status).toBe(200);
    expect(inA.body.results.map((x: { callbackUrl: string }) => x.callbackUrl)).toEqual([callback(A)]);
    expect((await of({})).body.count).toBe(0); // the default tenant's own
    expect((await of({}, tokenOf(A))).body.results.map((x: { callbackUrl: string }) => x.callbackUrl)).toEqual([callback(A)]);
    const other = await of({ [TENANT_HEADER]: B }, tokenOf(A));
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('platform-admin');
    const unknown = await of({ [TENANT_HEADER]: '100000010' });
    expect(unknown.status).toBe(403);
    expect(unknown.body.code).toBe('tenant-unknown');
  });

  it("never shows another tenant's resend", async () => {
    const list = (await t.call('GET', ABONNEMENTEN, undefined, { token: tokenOf(B) })).json();
    const resend = await t.call('POST', `${ABONNEMENTEN}/${list.results[0].uuid}/resend`, {}, { token: tokenOf(B) });
    expect(resend.statusCode).toBe(202);
    const id = resend.json().id;
    expect((await t.call('GET', `/admin/api/v1/notificaties/resends/${id}`, undefined, { token: tokenOf(B) })).statusCode).toBe(200);
    expect((await t.call('GET', `/admin/api/v1/notificaties/resends/${id}`, undefined, { token: tokenOf(A) })).statusCode).toBe(404);
  });

  it('counts requests per tenant in the metrics (one series per tenant and status class, no ids)', async () => {
    const count = async (tenant: string, cls: string) => {
      const text = (await t.call('GET', '/metrics', undefined, { token: METRICS })).body;
      const line = text.split('\n').find((l) => l.startsWith(`zgw_tenant_requests_total{tenant="${tenant}",status_class="${cls}"}`));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const before = [await count(A, '2xx'), await count(A, '4xx'), await count(B, '2xx')];
    await t.call('GET', ABONNEMENTEN, undefined, { token: tokenOf(A) });
    await t.call('GET', `${ABONNEMENTEN}/00000000-0000-0000-0000-000000000000`, undefined, { token: tokenOf(A) });
    expect([await count(A, '2xx'), await count(A, '4xx'), await count(B, '2xx')]).toEqual([before[0]! + 1, before[1]! + 1, before[2]]);
  });
});
