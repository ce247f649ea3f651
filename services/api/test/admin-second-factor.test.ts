/**
 * The second factor of a local admin login: TOTP set up with a QR code at the first login, a code asked at each login
 * after it, single-use recovery codes stored hashed, no code used twice, five wrong codes end the login, and another
 * administrator (or the admin command) resets a lost one.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Pii } from '@zgw/shared';
import { AdminUsers } from '../src/admin/ui/users';
import { AdminBrowser, factorOf, PASSWORD, totpCode } from './admin-ui.helpers';
import { startApp, type TestApp } from './harness';

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ ADMIN_INITIAL_USER: 'beheerder', ADMIN_INITIAL_PASSWORD: PASSWORD });
});
afterAll(async () => t.close());

const users = () =>
  t.mongo.db.collection<{ _id: string; totpSecret?: string; totpStep?: number; recoveryCodes?: string[]; failures?: number }>('adminusers');
const step = () => Math.floor(Date.now() / 30_000);

async function addUser(name: string): Promise<void> {
  expect(await new AdminUsers(t.mongo.db).create(name, PASSWORD)).toBe(true);
}

it('sets up the second factor at the first login: a QR code, the key, ten recovery codes; only a right code opens a session', async () => {
  await addUser('nieuw');
  const b = new AdminBrowser(t);
  const password = await b.password('nieuw', PASSWORD);
  expect(password.statusCode).toBe(303);
  expect(password.headers.location).toBe('/admin/login/tweede-factor');
  expect(b.cookies.has('zgw_beheer')).toBe(false); // the password alone opens nothing
  expect((await b.get('/admin/')).headers.location).toMatch(/^\/admin\/login/);

  const page = await b.get('/admin/login/tweede-factor');
  expect(page.statusCode).toBe(200);
  const qr = /<img class="qr" src="data:image\/svg\+xml;base64,([^"]+)"/.exec(page.body)?.[1];
  expect(Buffer.from(qr!, 'base64').toString()).toContain('<svg');
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.body)![1]!;
  expect(secret.length).toBeGreaterThanOrEqual(32); // 20 random bytes
  const codes = [...page.body.matchAll(/<li><code>([a-z2-9]{5}-[a-z2-9]{5})<\/code><\/li>/g)].map((m) => m[1]!);
  expect(new Set(codes).size).toBe(10);
  // A reload shows the same seed (a scanned code stays good).
  expect((await b.get('/admin/login/tweede-factor')).body).toContain(secret);

  const wrong = await b.code(page, totpCode(secret, step() + 5));
  expect(wrong.statusCode).toBe(401);
  expect(wrong.body).toContain('Nog 4 pogingen');
  const used = step();
  const done = await b.code(page, totpCode(secret, used));
  expect(done.statusCode).toBe(303);
  expect(done.headers.location).toBe('/admin/');
  expect(b.cookies.has('zgw_beheer')).toBe(true);
  expect(b.cookies.has('zgw_beheer_2fa')).toBe(false);

  // Stored: the seed sealed, the recovery codes as hashes; neither in the clear.
  const stored = (await users().findOne({ _id: 'nieuw' }))!;
  expect(Pii.isSealed(stored.totpSecret!)).toBe(true);
  expect(JSON.stringify(stored)).not.toContain(secret);
  for (const c of codes) expect(JSON.stringify(stored)).not.toContain(c);
  expect(stored.recoveryCodes).toEqual(codes.map((c) => createHash('sha256').update(c.replace('-', '')).digest('hex')));
  expect(stored.failures).toBe(0);
  expect(await t.mongo.db.collection('adminlogins').countDocuments({ user: 'nieuw' })).toBe(0);

  // The next login asks a code and sets up nothing new.
  const again = new AdminBrowser(t);
  await again.password('nieuw', PASSWORD);
  const codePage = await again.get('/admin/login/tweede-factor');
  expect(codePage.body).not.toContain('totp-secret');
  expect(codePage.body).toContain('autocomplete="one-time-code"');
  // The code just used is refused (no code twice); the next step's is taken.
  expect((await again.code(codePage, totpCode(secret, used))).statusCode).toBe(401);
  expect((await again.code(codePage, totpCode(secret, used + 1))).statusCode).toBe(303);
});

it('a recovery code works once, typed in any case and without its dash', async () => {
  await addUser('herstel');
  const b = new AdminBrowser(t);
  await b.password('herstel', PASSWORD);
  const page = await b.get('/admin/login/tweede-factor');
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.body)![1]!;
  const [first] = [...page.body.matchAll(/<li><code>([a-z2-9]{5}-[a-z2-9]{5})<\/code><\/li>/g)].map((m) => m[1]!);
  expect((await b.code(page, totpCode(secret, step()))).statusCode).toBe(303);

  const use = async (code: string) => {
    const c = new AdminBrowser(t);
    await c.password('herstel', PASSWORD);
    return c.code(await c.get('/admin/login/tweede-factor'), code);
  };
  expect((await use(first!.replace('-', '').toUpperCase())).statusCode).toBe(303);
  expect((await users().findOne({ _id: 'herstel' }))!.recoveryCodes).toHaveLength(9);
  expect((await use(first!)).statusCode).toBe(401);
});

it('five wrong codes end the login (the password has to be given again) and count as failures of the account', async () => {
  await addUser('gokker');
  const b = new AdminBrowser(t);
  await b.password('gokker', PASSWORD);
  const page = await b.get('/admin/login/tweede-factor');
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.body)![1]!;
  for (let i = 0; i < 4; i++) expect((await b.code(page, '000000')).statusCode).toBe(401);
  const last = await b.code(page, '000000');
  expect(last.statusCode).toBe(401);
  expect(last.body).toContain('5 keer een verkeerde code: log opnieuw in.');
  expect(last.body).toContain('name="wachtwoord"');
  // The login is gone: even the right code now leads back to the password.
  const after = await b.code(page, totpCode(secret, step()));
  expect(after.statusCode).toBe(303);
  expect(after.headers.location).toBe('/admin/login?verlopen=1');
  expect(b.cookies.has('zgw_beheer')).toBe(false);
  expect((await users().findOne({ _id: 'gokker' }))!.failures).toBe(5);
});

it('refuses the second-factor form without the login it belongs to (its token) or from another site', async () => {
  await addUser('vreemd');
  const b = new AdminBrowser(t);
  await b.password('vreemd', PASSWORD);
  const page = await b.get('/admin/login/tweede-factor');
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.body)![1]!;
  const noToken = await b.post('/admin/login/tweede-factor', { _csrf: null, code: totpCode(secret, step()) });
  expect(noToken.statusCode).toBe(403);
  const crossSite = await b.post(
    '/admin/login/tweede-factor',
    { _csrf: null, _stap: /name="_stap" value="([^"]+)"/.exec(page.body)![1]!, code: totpCode(secret, step()) },
    { 'sec-fetch-site': 'cross-site' },
  );
  expect(crossSite.statusCode).toBe(403);
  expect(b.cookies.has('zgw_beheer')).toBe(false);
  expect((await users().findOne({ _id: 'vreemd' }))!.totpSecret).toBeUndefined();
});

it('another administrator resets a lost second factor on the Beheerders screen: sessions end, the next login sets up a new one', async () => {
  await addUser('kwijt');
  const lost = new AdminBrowser(t);
  expect((await lost.login('kwijt', PASSWORD)).statusCode).toBe(303);
  const oldSecret = factorOf(t, 'kwijt')!;

  const admin = new AdminBrowser(t);
  expect((await admin.login('beheerder', PASSWORD)).statusCode).toBe(303);
  const list = await admin.get('/admin/beheerders');
  expect(list.statusCode).toBe(200);
  expect(list.body).toMatch(/<td>kwijt<\/td>[\s\S]*?ingesteld, 10 herstelcodes over/);
  // Not one's own (that would lock oneself out mid-session).
  expect((await admin.post('/admin/beheerders/beheerder/tweede-factor')).statusCode).toBe(400);
  const reset = await admin.post('/admin/beheerders/kwijt/tweede-factor');
  expect(reset.statusCode).toBe(303);
  expect((await admin.get(reset.headers.location as string)).body).toContain('De tweede factor van kwijt is verwijderd');
  expect((await lost.get('/admin/')).headers.location).toMatch(/^\/admin\/login/); // their session ended
  expect(await users().findOne({ _id: 'kwijt' })).not.toHaveProperty('totpSecret');

  const next = new AdminBrowser(t);
  await next.password('kwijt', PASSWORD);
  const page = await next.get('/admin/login/tweede-factor');
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.body)![1]!;
  expect(secret).not.toBe(oldSecret);
});

it('the admin command resets a second factor and lists who has one', async () => {
  await addUser('cli-factor');
  expect((await new AdminBrowser(t).login('cli-factor', PASSWORD)).statusCode).toBe(303);
  const cli = (args: string[]) =>
    execFileSync(process.execPath, [join(__dirname, '..', 'dist', 'cli', 'admin.js'), ...args], {
      env: { ...process.env, MONGODB_URL: t.config.MONGODB_URL, MONGODB_DB: t.config.MONGODB_DB },
      encoding: 'utf8',
    });
  expect(cli(['list'])).toMatch(/cli-factor\t.*\tsecond factor set, 10 recovery codes left/);
  expect(JSON.parse(cli(['reset-factor', 'cli-factor']))).toEqual({ name: 'cli-factor', reset: true });
  expect(cli(['list'])).toMatch(/cli-factor\t.*\tno second factor yet/);
});
