import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { AdminUsers } from '../src/admin/ui/users';
import { ADMIN_SESSIONS_COLLECTION } from '../src/admin/ui/sessions';
import { AdminBrowser, PASSWORD } from './admin-ui.helpers';
import { startApp, token, type TestApp } from './harness';

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ ADMIN_INITIAL_USER: 'beheerder', ADMIN_INITIAL_PASSWORD: PASSWORD });
});
afterAll(async () => t.close());

const loggedIn = async () => {
  const b = new AdminBrowser(t);
  expect((await b.login('beheerder', PASSWORD)).statusCode).toBe(303);
  await b.get('/admin/');
  return b;
};

describe('login', () => {
  it('creates the first administrator from ADMIN_INITIAL_PASSWORD, stored as a scrypt hash', async () => {
    const stored = await t.mongo.db.collection('adminusers').findOne({ _id: 'beheerder' as never });
    expect(stored?.password).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]{80,}$/);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
  });

  it('logs in with the right password into a session cookie: HttpOnly, SameSite=Strict, only for /admin', async () => {
    const b = new AdminBrowser(t);
    const res = await b.login('beheerder', PASSWORD);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/');
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] as string[]).find((c) => c.startsWith('zgw_beheer='))!;
    expect(cookie).toMatch(/; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=\d+/);
    expect(cookie).not.toContain('Secure'); // served over http here
    const home = await b.get('/admin/');
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain('beheerder');
    expect(home.headers['content-security-policy']).toContain("script-src 'self'");
    expect(home.headers['cache-control']).toBe('no-store');
  });

  it('refuses a wrong password and an unknown name with the same answer', async () => {
    const wrong = await new AdminBrowser(t).login('beheerder', 'not the password');
    const unknown = await new AdminBrowser(t).login('nobody', PASSWORD);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.body).toContain('Onjuiste naam of wachtwoord.');
    expect(unknown.body).toContain('Onjuiste naam of wachtwoord.');
    expect(wrong.headers['set-cookie']).not.toEqual(expect.stringContaining('zgw_beheer='));
  });

  it('refuses a login form that did not come from the login page (no login token)', async () => {
    const b = new AdminBrowser(t);
    const res = await b.post('/admin/login', { _csrf: null, naam: 'beheerder', wachtwoord: PASSWORD });
    expect(res.statusCode).toBe(403);
    expect(b.cookies.has('zgw_beheer')).toBe(false);
  });

  it('sends visitors without a session to the login page, and back after it', async () => {
    const b = new AdminBrowser(t);
    const res = await b.get('/admin/applicaties?zoek=x');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/login?next=%2Fadmin%2Fapplicaties%3Fzoek%3Dx');
    const form = await b.get(res.headers.location as string);
    const loginToken = /name="_login" value="([^"]+)"/.exec(form.body)![1]!;
    const next = /name="next" value="([^"]*)"/.exec(form.body)![1]!;
    const password = await b.post('/admin/login', { _csrf: null, _login: loginToken, next, naam: 'beheerder', wachtwoord: PASSWORD });
    expect(password.headers.location).toBe('/admin/login/tweede-factor');
    expect((await b.secondFactor('beheerder')).headers.location).toBe('/admin/applicaties?zoek=x');
    // Only pages of the admin screens: never another host.
    const c = new AdminBrowser(t);
    const again = /name="_login" value="([^"]+)"/.exec((await c.get('/admin/login')).body)![1]!;
    await c.post('/admin/login', { _csrf: null, _login: again, next: '//evil.example/', naam: 'beheerder', wachtwoord: PASSWORD });
    const evil = await c.secondFactor('beheerder');
    expect(evil.statusCode).toBe(303);
    expect(evil.headers.location).toBe('/admin/');
  });

  it('a second instance (another API process) knows the session, and keeps the first administrator as it is', async () => {
    const b = await loggedIn();
    const other = await startApp({ ADMIN_INITIAL_USER: 'beheerder', ADMIN_INITIAL_PASSWORD: 'another password of twenty' }, { shareWith: t });
    try {
      const res = await other.app.inject({ method: 'GET', url: '/admin/applicaties', headers: { cookie: b.cookieHeader } });
      expect(res.statusCode).toBe(200);
      expect((await new AdminBrowser(other).login('beheerder', PASSWORD)).statusCode).toBe(303);
      expect((await new AdminBrowser(other).login('beheerder', 'another password of twenty')).statusCode).toBe(401);
    } finally {
      // the shared database is t's: close only the other app's own resources
      await other.relay.stop();
      await other.app.close();
      await other.mongo.client.close();
    }
  });

  it('logout ends the session on the server: the cookie opens nothing afterwards', async () => {
    const b = await loggedIn();
    const saved = b.cookieHeader;
    const refused = await b.post('/admin/logout', { _csrf: 'wrong' });
    expect(refused.statusCode).toBe(403);
    const out = await b.post('/admin/logout');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/admin/login?uit=1');
    const again = await t.app.inject({ method: 'GET', url: '/admin/', headers: { cookie: saved } });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toMatch(/^\/admin\/login/);
  });

  it('keeps only a digest of the session token in the database', async () => {
    const b = await loggedIn();
    const tokenValue = b.cookies.get('zgw_beheer')!;
    const docs = await t.mongo.db.collection(ADMIN_SESSIONS_COLLECTION).find({ user: 'beheerder' }).toArray();
    expect(docs.length).toBeGreaterThan(0);
    expect(JSON.stringify(docs)).not.toContain(tokenValue);
  });

  it('a password change ends the other sessions and keeps this one', async () => {
    const users = new AdminUsers(t.mongo.db);
    await users.create('wisselaar', PASSWORD);
    const a = new AdminBrowser(t);
    const b = new AdminBrowser(t);
    await a.login('wisselaar', PASSWORD);
    await b.login('wisselaar', PASSWORD);
    await a.get('/admin/wachtwoord');
    const tooShort = await a.post('/admin/wachtwoord', { huidig: PASSWORD, nieuw: 'short', herhaal: 'short' });
    expect(tooShort.statusCode).toBe(400);
    const badCurrent = await a.post('/admin/wachtwoord', { huidig: 'not it at all!', nieuw: 'a new long password', herhaal: 'a new long password' });
    expect(badCurrent.statusCode).toBe(400);
    const ok = await a.post('/admin/wachtwoord', { huidig: PASSWORD, nieuw: 'a new long password', herhaal: 'a new long password' });
    expect(ok.statusCode).toBe(200);
    expect((await a.get('/admin/')).statusCode).toBe(200);
    expect((await b.get('/admin/')).statusCode).toBe(303);
    expect((await new AdminBrowser(t).login('wisselaar', 'a new long password')).statusCode).toBe(303);
    expect((await new AdminBrowser(t).login('wisselaar', PASSWORD)).statusCode).toBe(401);
  });
});

describe('CSRF', () => {
  const EXCLUSIONS = '/admin/api/v1/audit/exclusions';
  const stored = async () => (await t.call('GET', EXCLUSIONS)).json().clientIds;

  it('a form POST without the session token, or with another one, is refused and changes nothing', async () => {
    const b = await loggedIn();
    await b.get('/admin/audit');
    const before = await stored();
    const missing = await b.post('/admin/audit', { _csrf: null, clientIds: 'csrf-probe.*' });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('CSRF');
    const other = await loggedIn();
    const foreign = await b.post('/admin/audit', { _csrf: other.csrf, clientIds: 'csrf-probe.*' });
    expect(foreign.statusCode).toBe(403);
    expect(await stored()).toEqual(before);
    const ok = await b.post('/admin/audit', { clientIds: 'csrf-probe.*' });
    expect(ok.statusCode).toBe(303);
    expect(await stored()).toEqual(['csrf-probe.*']);
  });

  it('a form POST from another site is refused even with the token', async () => {
    const b = await loggedIn();
    await b.get('/admin/audit');
    const res = await b.post('/admin/audit', { clientIds: 'cross-site.*' }, { origin: 'https://evil.example' });
    expect(res.statusCode).toBe(403);
    const fetchMeta = await b.post('/admin/audit', { clientIds: 'cross-site.*' }, { 'sec-fetch-site': 'cross-site' });
    expect(fetchMeta.statusCode).toBe(403);
    expect(await stored()).not.toContain('cross-site.*');
  });

  it('the admin JSON endpoints take the session for reads, and for changes only with X-CSRF-Token', async () => {
    const b = await loggedIn();
    const headers = { cookie: b.cookieHeader, 'content-type': 'application/json' };
    const read = await t.app.inject({ method: 'GET', url: EXCLUSIONS, headers: { cookie: b.cookieHeader } });
    expect(read.statusCode).toBe(200);
    const noToken = await t.app.inject({ method: 'PUT', url: EXCLUSIONS, headers, payload: { clientIds: ['json-probe'] } });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.headers['content-type']).toContain('application/problem+json');
    const withToken = await t.app.inject({
      method: 'PUT',
      url: EXCLUSIONS,
      headers: { ...headers, 'x-csrf-token': b.csrf },
      payload: { clientIds: ['json-probe'] },
    });
    expect(withToken.statusCode).toBe(200);
    expect(withToken.json().updatedBy).toBe('beheer:beheerder');
    // Without a session the endpoints want a ZGW token as before.
    expect((await t.app.inject({ method: 'GET', url: EXCLUSIONS })).statusCode).toBe(401);
  });

  it('a session opens only the admin endpoints, never the ZGW APIs', async () => {
    const b = await loggedIn();
    const res = await t.app.inject({ method: 'GET', url: '/autorisaties/api/v1/applicaties', headers: { cookie: b.cookieHeader } });
    expect(res.statusCode).toBe(401);
  });
});

describe('audit exclusions screen', () => {
  it('shows the list in force, stores a new one, and returns to the environment list', async () => {
    const b = await loggedIn();
    const saved = await b.post('/admin/audit', { clientIds: 'batch.*\n  *-sync \n\nbatch.*' });
    expect(saved.headers.location).toBe('/admin/audit?gedaan=opgeslagen');
    const page = await b.get('/admin/audit?gedaan=opgeslagen');
    expect(page.body).toContain('De uitzonderingen zijn opgeslagen');
    expect(page.body).toMatch(/<textarea[^>]*>batch\.\*\n\*-sync<\/textarea>/);
    expect((await t.call('GET', '/admin/api/v1/audit/exclusions')).json()).toMatchObject({
      clientIds: ['batch.*', '*-sync'],
      bron: 'beheer',
      updatedBy: 'beheer:beheerder',
    });
    const bad = await b.post('/admin/audit', { clientIds: 'ok\nhas,comma' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Regel 2 (has,comma)');
    const reset = await b.post('/admin/audit/herstel');
    expect(reset.headers.location).toBe('/admin/audit?gedaan=hersteld');
    expect((await t.call('GET', '/admin/api/v1/audit/exclusions')).json().bron).toBe('AUDIT_EXCLUDE_CLIENT_IDS');
  });
});

describe('applicaties screen', () => {
  const secretsIn = (body: string) => [...body.matchAll(/data-secret>([^<]+)</g)].map((m) => m[1]!);

  it('creates an applicatie with a secret shown once, which then signs tokens the APIs accept', async () => {
    const b = await loggedIn();
    await b.get('/admin/applicaties/nieuw');
    const res = await b.post('/admin/applicaties/nieuw', {
      actie: 'opslaan',
      label: 'Zaaksysteem',
      clientIds: 'zaaksysteem\nzaaksysteem-batch',
      rows: '1',
      'a0.component': 'ac',
      'a0.scopes': ['autorisaties.lezen'],
      'a0.type': '',
      'a0.max': '',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const [first, second] = secretsIn(res.body);
    expect(first).toBeTruthy();
    expect(second).toBeTruthy();
    const ok = await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('zaaksysteem', first!) });
    expect(ok.statusCode).toBe(200);
    // Not shown again.
    const uuid = /\/admin\/applicaties\/([0-9a-f-]{36})/.exec(res.body)![1]!;
    const page = await b.get(`/admin/applicaties/${uuid}`);
    expect(page.body).not.toContain(first);
    expect(page.body).toContain('ingesteld');
    const list = await b.get('/admin/applicaties');
    expect(list.body).not.toContain(first);
    expect(list.body).toContain('Zaaksysteem');
  });

  it('edits autorisaties and alleenIsGereedVoorPublicatie, refusing what the Autorisaties rules refuse', async () => {
    const b = await loggedIn();
    const created = (
      await t.call('POST', '/autorisaties/api/v1/applicaties', { clientIds: ['lezer'], label: 'Lezer', heeftAlleAutorisaties: true })
    ).json();
    const uuid = created.url.split('/').pop();
    const page = await b.get(`/admin/applicaties/${uuid}`);
    expect(page.body).toContain('name="alleenIsGereedVoorPublicatie"');
    const iot = 'http://127.0.0.1:8000/catalogi/api/v1/informatieobjecttypen/9b1c3a34-0c5a-4a7e-9a6b-5d6c0b1f7e21';
    // "Autorisatie toevoegen" shows the form again with one more row, keeping what was typed, and saves nothing.
    const more = await b.post(`/admin/applicaties/${uuid}`, {
      actie: 'rij',
      label: 'Lezer (concept)',
      clientIds: 'lezer\nander',
      rows: '1',
      'a0.component': 'drc',
      'a0.scopes': ['documenten.lezen'],
      'a0.type': iot,
      'a0.max': 'openbaar',
    });
    expect(more.statusCode).toBe(200);
    expect(more.body.match(/data-autorisatie/g)).toHaveLength(2);
    expect(more.body).toContain('value="Lezer (concept)"');
    expect(more.body).not.toContain('name="clientId" value="ander"'); // secrets: only the client ids it has
    expect((await t.call('GET', `/autorisaties/api/v1/applicaties/${uuid}`)).json().label).toBe('Lezer');
    const both = await b.post(`/admin/applicaties/${uuid}`, {
      actie: 'opslaan',
      label: 'Lezer',
      clientIds: 'lezer',
      heeftAlleAutorisaties: '1',
      rows: '1',
      'a0.component': 'drc',
      'a0.scopes': ['documenten.lezen'],
      'a0.type': iot,
      'a0.max': 'openbaar',
    });
    expect(both.statusCode).toBe(400);
    expect(both.body).toContain('heeftAlleAutorisaties óf expliciete autorisaties');
    const noType = await b.post(`/admin/applicaties/${uuid}`, {
      actie: 'opslaan',
      label: 'Lezer',
      clientIds: 'lezer',
      rows: '1',
      'a0.component': 'drc',
      'a0.scopes': ['documenten.lezen'],
      'a0.type': '',
      'a0.max': 'openbaar',
    });
    expect(noType.statusCode).toBe(400);
    expect(noType.body).toContain('Autorisatie 1, informatieobjecttype');
    const saved = await b.post(`/admin/applicaties/${uuid}`, {
      actie: 'opslaan',
      label: 'Lezer',
      clientIds: 'lezer',
      alleenIsGereedVoorPublicatie: '1',
      rows: '2',
      'a0.component': 'drc',
      'a0.scopes': ['documenten.lezen'],
      'a0.extra': 'documenten.lock',
      'a0.type': iot,
      'a0.max': 'zaakvertrouwelijk',
      'a1.component': '',
      'a1.type': '',
      'a1.max': '',
    });
    // The client id had no secret yet: one is made and shown this once.
    expect(saved.statusCode).toBe(200);
    expect(secretsIn(saved.body)).toHaveLength(1);
    const stored = (await t.call('GET', `/autorisaties/api/v1/applicaties/${uuid}`)).json();
    expect(stored).toMatchObject({
      heeftAlleAutorisaties: false,
      alleenIsGereedVoorPublicatie: true,
      autorisaties: [
        {
          component: 'drc',
          scopes: ['documenten.lezen', 'documenten.lock'],
          informatieobjecttype: iot,
          maxVertrouwelijkheidaanduiding: 'zaakvertrouwelijk',
        },
      ],
    });
    const shown = await b.get(`/admin/applicaties/${uuid}`);
    expect(shown.body).toMatch(/id="alleenIsGereedVoorPublicatie" name="alleenIsGereedVoorPublicatie" value="1" checked/);
    // Removing the autorisatie row and the checkbox.
    const cleared = await b.post(`/admin/applicaties/${uuid}`, {
      actie: 'opslaan',
      label: 'Lezer',
      clientIds: 'lezer',
      heeftAlleAutorisaties: '1',
      rows: '1',
      'a0.component': 'drc',
      'a0.remove': '1',
    });
    expect(cleared.statusCode).toBe(303);
    expect((await t.call('GET', `/autorisaties/api/v1/applicaties/${uuid}`)).json()).toMatchObject({
      heeftAlleAutorisaties: true,
      alleenIsGereedVoorPublicatie: false,
      autorisaties: [],
    });
  });

  it('replaces a secret (the old one stops working) and deletes an applicatie with its secrets', async () => {
    const b = await loggedIn();
    const made = await b.post('/admin/applicaties/nieuw', {
      actie: 'opslaan',
      label: 'Tijdelijk',
      clientIds: 'tijdelijk',
      heeftAlleAutorisaties: '1',
      rows: '0',
    });
    const [old] = secretsIn(made.body);
    const uuid = /\/admin\/applicaties\/([0-9a-f-]{36})/.exec(made.body)![1]!;
    const rotated = await b.post(`/admin/applicaties/${uuid}/secret`, { clientId: 'tijdelijk' });
    const [fresh] = secretsIn(rotated.body);
    expect(fresh).toBeTruthy();
    expect(fresh).not.toBe(old);
    expect((await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('tijdelijk', old!) })).statusCode).toBe(403);
    expect((await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('tijdelijk', fresh!) })).statusCode).toBe(200);
    const foreign = await b.post(`/admin/applicaties/${uuid}/secret`, { clientId: 'test-admin' });
    expect(foreign.statusCode).toBe(400);
    const gone = await b.post(`/admin/applicaties/${uuid}/verwijderen`, { secrets: '1' });
    expect(gone.headers.location).toBe('/admin/applicaties?gedaan=verwijderd');
    expect((await t.call('GET', `/autorisaties/api/v1/applicaties/${uuid}`)).statusCode).toBe(404);
    expect(await t.mongo.db.collection('credentials').findOne({ _id: 'tijdelijk' as never })).toBeNull();
  });

  it('pages through applicaties and finds one by client id', async () => {
    for (let i = 0; i < 27; i++)
      await t.call('POST', '/autorisaties/api/v1/applicaties', { clientIds: [`pager-${i}`], label: `Pager ${i}`, heeftAlleAutorisaties: true });
    const b = await loggedIn();
    const first = await b.get('/admin/applicaties');
    const next = /<a rel="next" href="([^"]+)"/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    expect(next).toContain('cursor=');
    const second = await b.get(next);
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain('Pagina 2 van');
    const found = await b.get('/admin/applicaties?zoek=pager-3');
    expect(found.body).toContain('Pager 3<');
    expect(found.body).not.toContain('Pager 4<');
  });

  it('escapes what applicaties hold: labels and client ids show as text, never as markup', async () => {
    const label = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const clientId = '"><svg onload=alert(1)>';
    const created = (await t.call('POST', '/autorisaties/api/v1/applicaties', { clientIds: [clientId], label, heeftAlleAutorisaties: true })).json();
    const b = await loggedIn();
    const list = await b.get(`/admin/applicaties?zoek=${encodeURIComponent(clientId)}`);
    expect(list.body).not.toContain('<script>alert');
    expect(list.body).not.toContain('<img src=x');
    expect(list.body).not.toContain('<svg onload');
    expect(list.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(list.body).toContain('value="&quot;&gt;&lt;svg onload=alert(1)&gt;"'); // the search box
    const page = await b.get(`/admin/applicaties/${created.url.split('/').pop()}`);
    expect(page.body).not.toContain('<svg onload');
    expect(page.body).toContain('&quot;&gt;&lt;svg onload=alert(1)&gt;');
  });
});

describe('abonnementen screen', () => {
  it('lists abonnementen through the notificaties admin endpoints', async () => {
    const b = await loggedIn();
    const res = await b.get('/admin/abonnementen');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<th>Callback</th>');
  });
});

describe('admin command', () => {
  const cli = (args: string[], input?: string) =>
    execFileSync(process.execPath, [join(__dirname, '..', 'dist', 'cli', 'admin.js'), ...args], {
      env: { ...process.env, MONGODB_URL: t.config.MONGODB_URL, MONGODB_DB: t.config.MONGODB_DB, PUBLIC_BASE_URL: 'http://127.0.0.1:8000' },
      encoding: 'utf8',
      input,
    });

  it('adds an administrator with a generated password shown once, lists, resets and removes', async () => {
    const added = JSON.parse(cli(['add', 'cli-beheer']));
    expect(added.password.length).toBeGreaterThanOrEqual(20);
    expect(added.login).toBe('http://127.0.0.1:8000/admin/');
    expect((await new AdminBrowser(t).login('cli-beheer', added.password)).statusCode).toBe(303);
    expect(cli(['list'])).toContain('cli-beheer');
    expect(cli(['list'])).not.toContain(added.password);
    const reset = JSON.parse(cli(['password', 'cli-beheer', '--password-stdin'], 'typed in password here\n'));
    expect(reset.password).toBeUndefined();
    expect((await new AdminBrowser(t).login('cli-beheer', 'typed in password here')).statusCode).toBe(303);
    expect(JSON.parse(cli(['remove', 'cli-beheer']))).toMatchObject({ removed: true });
    expect((await new AdminBrowser(t).login('cli-beheer', 'typed in password here')).statusCode).toBe(401);
  });
});

describe('API reference', () => {
  it('GET / links the reference and the admin screens', async () => {
    const root = (await t.call('GET', '/', undefined, { token: null })).json();
    expect(root.links).toEqual({ apiReferentie: 'http://127.0.0.1:8000/api-referentie', beheer: 'http://127.0.0.1:8000/admin/' });
  });

  it('lists every component with its versions and OpenAPI files, without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api-referentie' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    for (const name of ['autorisaties', 'catalogi', 'zaken', 'documenten']) expect(res.body).toContain(`href="/api-referentie/${name}"`);
    expect(res.body).toContain('href="/api-referentie/documenten/1.7.0"');
    expect(res.body).toContain('href="http://127.0.0.1:8000/zaken/api/v1/schema/openapi.yaml"');
  });

  it('renders each component from the document it serves: every operation, every schema', async () => {
    const doc = (await t.call('GET', '/zaken/api/v1/schema/openapi.json')).json();
    const page = (await t.app.inject({ method: 'GET', url: '/api-referentie/zaken' })).body;
    const operationIds = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) =>
      Object.values(ops).map((o) => o.operationId),
    );
    expect(operationIds.length).toBeGreaterThan(50);
    for (const id of operationIds) expect(page).toContain(`id="op-${id}"`);
    for (const name of Object.keys(doc.components.schemas)) expect(page).toContain(`id="schema-${name.replace(/[^A-Za-z0-9_.-]/g, '-')}"`);
    expect(page).not.toContain('<script');
  });

  it('serves each version of a component with several, linking the others; unknown ones are 404', async () => {
    const v17 = (await t.app.inject({ method: 'GET', url: '/api-referentie/documenten/1.7.0' })).body;
    const v15 = (await t.app.inject({ method: 'GET', url: '/api-referentie/documenten/1.5.0' })).body;
    expect(v17).toContain('isGereedVoorPublicatie');
    expect(v15).not.toContain('isGereedVoorPublicatie');
    expect(v17).toContain('href="/api-referentie/documenten/1.5.0"');
    expect(v17).toContain('href="http://127.0.0.1:8000/documenten/api/v1/schema/1.7.0/openapi.json"');
    expect((await t.app.inject({ method: 'GET', url: '/api-referentie/documenten/9.9.9' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api-referentie/onbekend' })).statusCode).toBe(404);
  });

  it('loads nothing from elsewhere: no scripts, styles only from this host', async () => {
    const page = (await t.app.inject({ method: 'GET', url: '/api-referentie/catalogi' })).body;
    expect(page).not.toContain('<script');
    const sources = [...page.matchAll(/<(?:link|img|script)[^>]+(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).toEqual(['/api-referentie/static/reference.css']);
    const css = await t.app.inject({ method: 'GET', url: '/api-referentie/static/reference.css' });
    expect(css.headers['content-type']).toContain('text/css');
    expect(css.body).not.toMatch(/url\(|@import/);
  });
});
