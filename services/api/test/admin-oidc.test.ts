/**
 * Administrators signing in through an OpenID Connect provider, in headless Chromium against a real provider
 * (oidc-provider, test/fixtures/oidc-provider.mjs, on localhost: another site than the platform on 127.0.0.1, so the
 * SameSite rules of the cookies are those of a real deployment). The authorization code flow with PKCE, state and nonce;
 * the role claim decides; tampered state, nonce or PKCE challenge are refused; signing out ends the provider's session.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PASSWORD } from './admin-ui.helpers';
import { startApp, type TestApp } from './harness';

const BROWSER = process.env.ZGW_CHROMIUM || '/usr/bin/chromium';
const CLIENT_ID = 'zgw-beheer';
const CLIENT_SECRET = 'a client secret of the admin screens';

let provider: ChildProcess;
let issuer: string;
let t: TestApp;
let base: string;
let browser: Browser;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Runs `start` on a port that was free a moment ago, again on another when a parallel test took it meanwhile
 * (`EADDRINUSE` at listen): the platform's URL must be known before it listens.
 */
async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if ((err as { code?: string }).code !== 'EADDRINUSE' || attempt === 3) throw err;
    }
  }
}

/** Starts the test provider for the platform at `at`; its issuer URL. */
async function startProvider(at: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; issuer: string }> {
  const child = spawn(process.execPath, [join(__dirname, 'fixtures', 'oidc-provider.mjs')], {
    env: { ...process.env, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI: `${at}/admin/oidc/callback`, POST_LOGOUT_URI: `${at}/admin/login?uit=1`, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the test provider exited (${code})`)));
  });
  return { child, issuer: (JSON.parse(first) as { issuer: string }).issuer };
}

beforeAll(async () => {
  if (!existsSync(BROWSER)) throw new Error(`no browser at ${BROWSER}: run bash scripts/browser.sh (scripts/test.sh does)`);
  await onFreePort(async (port) => {
    base = `http://127.0.0.1:${port}`;
    ({ child: provider, issuer } = await startProvider(base));
    t = await startApp({
      PUBLIC_BASE_URL: base,
      ADMIN_OIDC_ISSUER: issuer,
      ADMIN_OIDC_CLIENT_ID: CLIENT_ID,
      ADMIN_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      ADMIN_INITIAL_USER: 'beheerder',
      ADMIN_INITIAL_PASSWORD: PASSWORD,
    });
    try {
      await t.app.listen({ host: '127.0.0.1', port });
    } catch (err) {
      await t.close();
      provider.kill();
      throw err;
    }
  });
  browser = await chromium.launch({ executablePath: BROWSER, headless: true, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  provider?.kill();
});

/** Starts at the platform's login page, signs in at the provider as `login` (its development pages), back at the platform. */
async function viaProvider(
  login: string,
  rewrite?: (auth: URL) => void,
  at: { base: string; issuer: string } = { base, issuer },
): Promise<{ page: Page; context: BrowserContext; flowCookie?: string }> {
  const { base, issuer } = at;
  const context = await browser.newContext();
  if (rewrite) {
    // The platform's redirect to the provider, changed on the way (a redirect's next hop is not routed itself).
    await context.route(`${base}/admin/oidc/login*`, async (route) => {
      const answer = await route.fetch({ maxRedirects: 0 });
      const url = new URL(answer.headers().location!);
      rewrite(url);
      return route.fulfill({ response: answer, headers: { ...answer.headers(), location: url.toString() } });
    });
  }
  const page = await context.newPage();
  await page.goto(`${base}/admin/login`);
  await page.click('a:has-text("Inloggen via de identity provider")');
  await page.waitForURL((u) => u.toString().startsWith(issuer));
  const flow = (await context.cookies()).find((c) => c.name === 'zgw_beheer_oidc');
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password at the test provider');
  await page.click('button[type=submit]');
  await page.waitForLoadState('load');
  if (page.url().startsWith(issuer)) await page.click('button[type=submit]'); // the provider's consent
  await page.waitForURL((u) => u.toString().startsWith(base));
  await page.waitForLoadState('load');
  return { page, context, flowCookie: flow?.sameSite };
}

it('an administrator with the role signs in at the provider (PKCE, Lax flow cookie), gets a Strict session, and signs out there too', async () => {
  const { page, context, flowCookie } = await viaProvider('beheerder-anna');
  expect(flowCookie).toBe('Lax'); // it has to come back on the provider's redirect from another site
  await page.waitForURL(`${base}/admin/`);
  expect(await page.textContent('h1')).toBe('Beheer');
  expect(await page.textContent('form.session a')).toBe('oidc:beheerder-anna');
  const cookies = await context.cookies();
  expect(cookies.find((c) => c.name === 'zgw_beheer')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
  expect((await context.cookies()).find((c) => c.name === 'zgw_beheer_oidc')).toBeUndefined();
  expect(await t.mongo.db.collection('adminoidcflows').countDocuments()).toBe(0); // used once, gone
  // The screens work as for any administrator; the password is the provider's business.
  await page.goto(`${base}/admin/applicaties`);
  expect(await page.textContent('h1')).toContain('Applicaties');
  await page.goto(`${base}/admin/wachtwoord`);
  expect(await page.textContent('main')).toContain('ingelogd via de identity provider');

  // Sign-out: the session ends here and at the provider (its confirmation page), back on the login page.
  await page.click('button:has-text("Uitloggen")');
  await page.waitForURL((u) => u.toString().startsWith(issuer));
  await page.click('button[name=logout][value=yes]');
  await page.waitForURL(`${base}/admin/login?uit=1`);
  expect(await page.textContent('.notice')).toContain('U bent uitgelogd.');
  expect(await t.mongo.db.collection('adminsessions').countDocuments({ user: 'oidc:beheerder-anna' })).toBe(0);
  // The provider's session is gone too: signing in again asks for the login there.
  await page.click('a:has-text("Inloggen via de identity provider")');
  await page.waitForURL((u) => u.toString().startsWith(issuer));
  await page.locator('input[name=login]').waitFor();
  await context.close();
});

it('refuses an account without the role with a clear page, and opens no session', async () => {
  const { page, context } = await viaProvider('gast');
  expect(page.url()).toContain('/admin/oidc/callback');
  expect(await page.textContent('h1')).toBe('Geen toegang');
  const text = await page.textContent('.errors');
  expect(text).toContain('U bent aangemeld als gast');
  expect(text).toContain('de rol zgw-admin (claim roles; voor het hele platform: zgw-platform-admin)');
  expect((await context.cookies()).find((c) => c.name === 'zgw_beheer')).toBeUndefined();
  await context.close();
});

it.each([
  ['state', (u: URL) => u.searchParams.set('state', 'tampered-state')],
  ['nonce', (u: URL) => u.searchParams.set('nonce', 'tampered-nonce')],
  ['PKCE challenge', (u: URL) => u.searchParams.set('code_challenge', 'A'.repeat(43))],
])('refuses a sign-in whose %s was tampered with on the way', async (_what, rewrite) => {
  const { page, context } = await viaProvider('beheerder-bob', rewrite);
  expect(page.url()).toContain('/admin/oidc/callback');
  expect(await page.textContent('h1')).toBe('Inloggen mislukt');
  expect(await page.textContent('.errors')).toContain('klopt niet');
  expect((await context.cookies()).find((c) => c.name === 'zgw_beheer')).toBeUndefined();
  expect(await t.mongo.db.collection('adminsessions').countDocuments({ user: 'oidc:beheerder-bob' })).toBe(0);
  await context.close();
});

it('asks the provider for the code flow with PKCE S256, state and nonce, and refuses a callback that was not begun here', async () => {
  const begin = await t.app.inject({ method: 'GET', url: '/admin/oidc/login?next=%2Fadmin%2Faudit' });
  expect(begin.statusCode).toBe(302);
  const auth = new URL(begin.headers.location as string);
  expect(auth.origin).toBe(issuer);
  expect(auth.searchParams.get('response_type')).toBe('code');
  expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
  expect(auth.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
  expect(auth.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
  expect(auth.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/);
  expect(String(begin.headers['set-cookie'])).toMatch(/^zgw_beheer_oidc=[\w-]+; Path=\/admin\/oidc; HttpOnly; SameSite=Lax; Max-Age=600$/);
  // No flow cookie, or one of a flow already used: refused.
  const stray = await t.app.inject({ method: 'GET', url: `/admin/oidc/callback?code=x&state=${auth.searchParams.get('state')}` });
  expect(stray.statusCode).toBe(400);
  expect(stray.body).toContain('niet hier begonnen');
});

it('with ADMIN_LOCAL_LOGIN=false the login page offers only the provider, and a password is not taken', async () => {
  const only = await startApp({
    PUBLIC_BASE_URL: base,
    ADMIN_OIDC_ISSUER: issuer,
    ADMIN_OIDC_CLIENT_ID: CLIENT_ID,
    ADMIN_LOCAL_LOGIN: 'false',
    ADMIN_INITIAL_USER: 'beheerder',
    ADMIN_INITIAL_PASSWORD: PASSWORD,
  });
  try {
    const page = await only.app.inject({ method: 'GET', url: '/admin/login' });
    expect(page.body).toContain('Inloggen via de identity provider');
    expect(page.body).not.toContain('name="wachtwoord"');
    const token = /zgw_beheer_login=([^;]+)/.exec(String(page.headers['set-cookie']))![1]!;
    const post = await only.app.inject({
      method: 'POST',
      url: '/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `zgw_beheer_login=${token}` },
      payload: new URLSearchParams({ _login: token, naam: 'beheerder', wachtwoord: PASSWORD }).toString(),
    });
    expect(post.statusCode).toBe(403);
    expect(post.headers.location).toBeUndefined();
  } finally {
    await only.close();
  }
});

it('says so when the provider cannot be reached, and refuses a configuration without a client id or over plain http elsewhere', async () => {
  const down = await startApp({ ADMIN_OIDC_ISSUER: 'http://127.0.0.1:1', ADMIN_OIDC_CLIENT_ID: CLIENT_ID });
  try {
    const res = await down.app.inject({ method: 'GET', url: '/admin/oidc/login' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('De identity provider is nu niet bereikbaar');
  } finally {
    await down.close();
  }
  await expect(startApp({ ADMIN_OIDC_ISSUER: issuer })).rejects.toThrow(/ADMIN_OIDC_CLIENT_ID: required/);
  await expect(startApp({ ADMIN_OIDC_ISSUER: 'http://idp.example.org', ADMIN_OIDC_CLIENT_ID: CLIENT_ID })).rejects.toThrow(/must be an https URL/);
  await expect(startApp({ ADMIN_LOCAL_LOGIN: 'false' })).rejects.toThrow(/ADMIN_LOCAL_LOGIN: false needs ADMIN_OIDC_ISSUER/);
});

it('reads the role from the ID token when the provider has no userinfo endpoint', async () => {
  const { at, idOnly, app } = await onFreePort(async (port) => {
    const at = `http://127.0.0.1:${port}`;
    const idOnly = await startProvider(at, { ID_TOKEN_ONLY: '1' });
    const app = await startApp({
      PUBLIC_BASE_URL: at,
      ADMIN_OIDC_ISSUER: idOnly.issuer,
      ADMIN_OIDC_CLIENT_ID: CLIENT_ID,
      ADMIN_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    });
    try {
      await app.app.listen({ host: '127.0.0.1', port });
    } catch (err) {
      await app.close();
      idOnly.child.kill();
      throw err;
    }
    return { at, idOnly, app };
  });
  try {
    const discovery = (await (await fetch(`${idOnly.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery.userinfo_endpoint).toBeUndefined();
    const { page, context } = await viaProvider('beheerder-ida', undefined, { base: at, issuer: idOnly.issuer });
    await page.waitForURL(`${at}/admin/`);
    expect(await page.textContent('form.session a')).toBe('oidc:beheerder-ida');
    await context.close();
    const refused = await viaProvider('gast-ida', undefined, { base: at, issuer: idOnly.issuer });
    expect(await refused.page.textContent('h1')).toBe('Geen toegang');
    await refused.context.close();
  } finally {
    await app.close();
    idOnly.child.kill();
  }
});

it('an administrator with ADMIN_OIDC_ROLES and the tenant claim manages that organisation only; the platform role every one', async () => {
  const rsin = '123456782';
  expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam: 'Gemeente A' })).statusCode).toBe(201);
  const org = await viaProvider(`org-${rsin}-olga`);
  await org.page.waitForURL(`${base}/admin/`);
  expect(await org.page.textContent('header .tenant')).toBe(rsin);
  expect(await org.page.locator('nav a:has-text("Organisaties")').count()).toBe(0);
  const session = await t.mongo.db.collection('adminsessions').findOne({ user: `oidc:org-${rsin}-olga` });
  expect(session).toMatchObject({ tenant: rsin, platform: false });
  const refused = await org.page.goto(`${base}/admin/organisaties`);
  expect(refused?.status()).toBe(403);
  await org.context.close();

  // the claim naming an organisation that does not exist: no session
  const unknown = await viaProvider('org-111222333-otto');
  expect(await unknown.page.textContent('.errors')).toContain('bestaat niet op dit platform');
  expect((await unknown.context.cookies()).find((c) => c.name === 'zgw_beheer')).toBeUndefined();
  await unknown.context.close();

  const platform = await viaProvider('platform-pim');
  await platform.page.waitForURL(`${base}/admin/`);
  await platform.page.goto(`${base}/admin/organisaties`);
  expect(await platform.page.textContent('main table')).toContain('Gemeente A');
  expect(await t.mongo.db.collection('adminsessions').findOne({ user: 'oidc:platform-pim' })).toMatchObject({ platform: true });
  await platform.context.close();
});

it('with ADMIN_OIDC_TENANT_REQUIRED refuses a login without the tenant claim, and makes a platform administrator only by the platform role', async () => {
  const rsin = t.config.ZGW_DEFAULT_TENANT;
  // without it (one organisation): an administrator of the default tenant runs the platform, as before
  const before = await viaProvider(`org-${rsin}-dirk`);
  await before.page.waitForURL(`${base}/admin/`);
  expect(await t.mongo.db.collection('adminsessions').findOne({ user: `oidc:org-${rsin}-dirk` })).toMatchObject({ tenant: rsin, platform: true });
  await before.context.close();

  const { at, shared, app } = await onFreePort(async (port) => {
    const at = `http://127.0.0.1:${port}`;
    const shared = await startProvider(at);
    const app = await startApp({
      PUBLIC_BASE_URL: at,
      ADMIN_OIDC_ISSUER: shared.issuer,
      ADMIN_OIDC_CLIENT_ID: CLIENT_ID,
      ADMIN_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      ADMIN_OIDC_TENANT_REQUIRED: 'true',
    });
    try {
      await app.app.listen({ host: '127.0.0.1', port });
    } catch (err) {
      await app.close();
      shared.child.kill();
      throw err;
    }
    return { at, shared, app };
  });
  const to = { base: at, issuer: shared.issuer };
  const sessionOf = (user: string) => app.mongo.db.collection('adminsessions').findOne({ user: `oidc:${user}` });
  try {
    // the admin role without the claim: refused, no session (not the default tenant's administrator)
    const refused = await viaProvider('beheerder-bea', undefined, to);
    expect(refused.page.url()).toContain('/admin/oidc/callback');
    expect(await refused.page.textContent('h1')).toBe('Geen toegang');
    expect(await refused.page.textContent('.errors')).toContain('de claim rsin noemt geen organisatie');
    expect((await refused.context.cookies()).find((c) => c.name === 'zgw_beheer')).toBeUndefined();
    expect(await sessionOf('beheerder-bea')).toBeNull();
    await refused.context.close();

    // the admin role naming the default tenant: that organisation's administrator, not the platform's
    const dora = await viaProvider(`org-${rsin}-dora`, undefined, to);
    await dora.page.waitForURL(`${at}/admin/`);
    expect(await sessionOf(`org-${rsin}-dora`)).toMatchObject({ tenant: rsin, platform: false });
    expect(await dora.page.locator('nav a:has-text("Organisaties")').count()).toBe(0);
    expect((await dora.page.goto(`${at}/admin/organisaties`))?.status()).toBe(403);
    await dora.context.close();

    // the platform role: a platform administrator, no claim needed
    const pia = await viaProvider('platform-pia', undefined, to);
    await pia.page.waitForURL(`${at}/admin/`);
    expect(await sessionOf('platform-pia')).toMatchObject({ platform: true });
    await pia.context.close();
  } finally {
    await app.close();
    shared.child.kill();
  }
});
