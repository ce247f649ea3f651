import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from './harness';

/** The second factors the tests' administrators set up, by database and name: their seed and the last step used. */
const factors = new Map<string, { secret: string; step: number }>();
const stepNow = () => Math.floor(Date.now() / 30_000);

/** The TOTP code of a seed (base32) for a 30-second time step, as an authenticator app shows it. */
export function totpCode(secret: string, step: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: step * 30_000 });
}

/** The seed a test's administrator set up (for tests that make codes themselves). */
export function factorOf(t: TestApp, name: string): string | undefined {
  return factors.get(`${t.config.MONGODB_DB}/${name}`)?.secret;
}

/** A browser's view of the admin screens over inject: its cookies, and the CSRF token of the last page. */
export class AdminBrowser {
  cookies = new Map<string, string>();
  csrf = '';

  constructor(private readonly t: TestApp) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (attrs.some((a) => /max-age=0/i.test(a.trim())) || value === '') this.cookies.delete(name!);
      else this.cookies.set(name!, value!);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) this.csrf = token[1]!;
    return res;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(await this.t.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader, ...headers } }));
  }

  /** Submits a form; `_csrf` is the page's token unless the fields say otherwise (null: left out). */
  async post(
    url: string,
    fields: Record<string, string | string[] | null> = {},
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    const all = { _csrf: this.csrf, ...fields };
    for (const [k, v] of Object.entries(all)) {
      if (v === null) continue;
      for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    }
    return this.keep(
      await this.t.app.inject({
        method: 'POST',
        url,
        payload: body.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader, ...headers },
      }),
    );
  }

  /**
   * Logs in through the login form and, when the password is right, the second factor (set up on the first login, its
   * seed kept for the next); returns the last answer (303 to the screens when both passed).
   */
  async login(name: string, password: string): Promise<LightMyRequestResponse> {
    const res = await this.password(name, password);
    if (res.statusCode !== 303 || res.headers.location !== '/admin/login/tweede-factor') return res;
    return this.secondFactor(name);
  }

  /** Only the password step. */
  async password(name: string, password: string): Promise<LightMyRequestResponse> {
    const form = await this.get('/admin/login');
    const token = /name="_login" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    return this.post('/admin/login', { _csrf: null, _login: token, naam: name, wachtwoord: password });
  }

  /** The second-factor step with a right code: a step not used before (waiting for the next one when needed). */
  async secondFactor(name: string): Promise<LightMyRequestResponse> {
    const key = `${this.t.config.MONGODB_DB}/${name}`;
    const page = await this.get('/admin/login/tweede-factor');
    const enrolling = /id="totp-secret">([A-Z2-7]+)</.exec(page.body)?.[1];
    if (enrolling) factors.set(key, { secret: enrolling, step: 0 });
    const factor = factors.get(key);
    if (!factor) throw new Error(`the test does not know the second factor of ${name}`);
    // The code of the current step, or of the next: both stay valid when the clock passes a step's end before the
    // platform checks it (a code of the step before would then be two steps old and refused).
    let step = Math.max(stepNow(), factor.step + 1);
    if (step > stepNow() + 1) {
      // Both are used: as if half a minute passed, the administrator's last used step goes back (the platform refuses
      // a code of a step not later than it; tested on its own).
      await this.t.mongo.db.collection<{ _id: string }>('adminusers').updateOne({ _id: name }, { $set: { totpStep: stepNow() - 1 } });
      step = stepNow();
    }
    factor.step = step;
    return this.code(page, totpCode(factor.secret, step));
  }

  /** Sends a code on a second-factor page. */
  async code(page: LightMyRequestResponse, code: string): Promise<LightMyRequestResponse> {
    const token = /name="_stap" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    return this.post('/admin/login/tweede-factor', { _csrf: null, _stap: token, code });
  }
}

export const PASSWORD = 'correct horse battery staple';

/** Where the browser tests leave their screenshots. */
export const SHOTS = join(__dirname, '..', '..', '..', 'reports', 'e2e');
/** Headless Chromium (Debian's `chromium`, or where ZGW_CHROMIUM says). */
export const BROWSER = process.env.ZGW_CHROMIUM || '/usr/bin/chromium';

/**
 * Headless Chromium on the admin screens at `base` (fails when the browser is missing): a page in a context that lets
 * only requests to `base` through and lists every other request in `elsewhere`; with `acceptDialogs`, confirmation
 * dialogs are answered yes.
 */
export async function openAdminBrowser(
  base: string,
  elsewhere: string[],
  options: { width?: number; acceptDialogs?: boolean } = {},
): Promise<{ browser: Browser; context: BrowserContext; page: Page }> {
  if (!existsSync(BROWSER)) throw new Error(`no browser at ${BROWSER}: run bash scripts/browser.sh (scripts/test.sh does)`);
  mkdirSync(SHOTS, { recursive: true });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: BROWSER, headless: true, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`)) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  if (options.acceptDialogs) page.on('dialog', (d) => void d.accept());
  return { browser, context, page };
}

/**
 * Opens `path` of the admin screens, is sent to the login form, logs in as `name` (the first login, which sets up the
 * second factor with the key the page shows) and waits until the browser is back on `path`.
 */
export async function loginInBrowser(page: Page, base: string, path: string, name: string): Promise<void> {
  await page.goto(`${base}${path}`);
  await page.fill('#naam', name);
  await page.fill('#wachtwoord', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/admin/login/tweede-factor`);
  const seed = (await page.textContent('#totp-secret'))!;
  await page.fill('#code', totpCode(seed, Math.floor(Date.now() / 30_000)));
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}${path}`);
}
