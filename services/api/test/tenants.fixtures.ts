import { ensureAllRights } from '../src/bootstrap';
import { token, type TestApp } from './harness';

/** The token of organisation `rsin`'s administrator (an all-rights client `client-<rsin>`, see organisation). */
export const adminOf = (rsin: string): string => token(`client-${rsin}`, `client-${rsin}-secret`);

/** Adds organisation `rsin` with its administrator, an all-rights client `client-<rsin>`; returns its token. */
export async function organisation(t: TestApp, rsin: string, naam = `Gemeente ${rsin}`): Promise<string> {
  const made = await t.call('POST', '/admin/api/v1/tenants', { rsin, naam });
  if (made.statusCode !== 201) throw new Error(`tenant ${rsin}: ${made.statusCode} ${made.body}`);
  const client = await t.call('POST', '/admin/api/v1/credentials', { identifier: `client-${rsin}`, secret: `client-${rsin}-secret`, tenant: rsin });
  if (client.statusCode !== 201) throw new Error(`client of ${rsin}: ${client.statusCode} ${client.body}`);
  await ensureAllRights(t.deps.db, `client-${rsin}`, rsin);
  return adminOf(rsin);
}

/** The app as the holder of `tok` sees it: every call with that token unless another is given. */
export function as(t: TestApp, tok: string): TestApp {
  return { ...t, call: (method, url, body, opts = {}) => t.call(method, url, body, { ...opts, token: opts.token === undefined ? tok : opts.token }) };
}
