import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './harness';

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

  /** Logs in through the login form; returns the answer to the form. */
  async login(name: string, password: string): Promise<LightMyRequestResponse> {
    const form = await this.get('/admin/login');
    const token = /name="_login" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    return this.post('/admin/login', { _csrf: null, _login: token, naam: name, wachtwoord: password });
  }
}

export const PASSWORD = 'correct horse battery staple';
