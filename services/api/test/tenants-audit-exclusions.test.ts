import { rmSync } from 'node:fs';
import { AUDIT_EXCLUSIONS_SETTING, TENANT_HEADER, tenantExclusionsId } from '@zgw/shared';
import { AdminUsers } from '../src/admin/ui/users';
import { ensureAllRights } from '../src/bootstrap';
import { AdminBrowser, PASSWORD } from './admin-ui.helpers';
import { eventually, startApp, token, type TestApp } from './harness';
import { CRS, ZRC } from './zaken.fixtures';

// The audit trail of reads of one organisation cannot be silenced by another's administrator: an organisation's
// exclusions apply to the reads made within it only; the platform's list (AUDIT_EXCLUDE_CLIENT_IDS, or the one a
// platform administrator stored) to every organisation, and only platform administrators change it.
const A = '123456782';
const B = '111222333';
const EXCLUSIONS = '/admin/api/v1/audit/exclusions';
let t: TestApp;
const others: TestApp[] = [];
const tok = (rsin: string) => token(`beheer-${rsin}`, `beheer-${rsin}-secret`);

beforeAll(async () => {
  t = await startApp({ AUDIT_EXCLUDE_CLIENT_IDS: 'batch.*', AUDIT_SETTINGS_POLL_MS: '200' });
  for (const rsin of [A, B]) {
    expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam: `Gemeente ${rsin}` })).statusCode).toBe(201);
    const made = await t.call('POST', '/admin/api/v1/credentials', { identifier: `beheer-${rsin}`, secret: `beheer-${rsin}-secret`, tenant: rsin });
    expect(made.statusCode).toBe(201);
    await ensureAllRights(t.deps.db, `beheer-${rsin}`, rsin);
  }
});
afterAll(async () => {
  for (const o of others) {
    await o.relay.stop();
    await o.app.close();
    await o.mongo.client.close();
    rmSync(o.config.AUDIT_SPOOL_DIR, { recursive: true, force: true });
  }
  await t?.close();
});

/** Whether a read of the zaken list by this client leaves a read entry. */
async function recorded(tokn: string, on: TestApp = t): Promise<boolean> {
  const spy = jest.spyOn(on.deps.reads!, 'record');
  try {
    const res = await on.call('GET', `${ZRC}/zaken`, undefined, { token: tokn, headers: CRS });
    expect(res.statusCode).toBe(200);
    expect(spy).toHaveBeenCalledTimes(1);
    return spy.mock.results[0]!.value !== undefined;
  } finally {
    spy.mockRestore();
  }
}

const put = (clientIds: string[], tokn?: string, headers: Record<string, string> = {}) =>
  t.call('PUT', EXCLUSIONS, { clientIds }, { headers, ...(tokn ? { token: tokn } : {}) });
const get = (tokn?: string) => t.call('GET', EXCLUSIONS, undefined, tokn ? { token: tokn } : {});

it("keeps an organisation's exclusions to the reads made within it: another organisation's reads stay recorded", async () => {
  expect(await recorded(tok(B))).toBe(true);
  // A's administrator names B's client: stored as A's own list, it cannot silence B's reads
  const silence = await put([`beheer-${B}`], tok(A));
  expect(silence.statusCode).toBe(200);
  expect(await recorded(tok(B))).toBe(true);
  expect(await t.mongo.db.collection('settings').findOne({ _id: AUDIT_EXCLUSIONS_SETTING as never })).toBeNull();

  // A's own client on A's list: A's reads are not recorded, B's still are
  const own = await put([`beheer-${A}`], tok(A));
  expect(own.statusCode).toBe(200);
  expect(own.json()).toMatchObject({ clientIds: [`beheer-${A}`], bron: 'beheer', updatedBy: `beheer-${A}`, tenant: A });
  expect(await recorded(tok(A))).toBe(false);
  expect(await recorded(tok(B))).toBe(true);

  // each administrator sees its own organisation's list, with the platform's beside it
  const platform = { clientIds: ['batch.*'], bron: 'AUDIT_EXCLUDE_CLIENT_IDS', updatedAt: null, updatedBy: null };
  expect((await get(tok(A))).json()).toEqual({
    clientIds: [`beheer-${A}`],
    bron: 'beheer',
    updatedAt: expect.any(String),
    updatedBy: `beheer-${A}`,
    tenant: A,
    platform,
  });
  expect((await get(tok(B))).json()).toEqual({ clientIds: [], bron: 'geen', updatedAt: null, updatedBy: null, tenant: B, platform });
  // the platform administrator's own view is the platform's list, as before tenants
  expect((await get()).json()).toEqual(platform);

  // another instance follows A's list within its poll, for A's reads only
  // (an API of several organisations starts with /metrics behind a token)
  const other = await startApp(
    { AUDIT_EXCLUDE_CLIENT_IDS: 'batch.*', AUDIT_SETTINGS_POLL_MS: '200', METRICS_TOKEN: 'a token for prometheus' },
    { shareWith: t },
  );
  others.push(other);
  expect((await other.call('GET', '/')).statusCode).toBe(200);
  expect(await eventually(async () => other.deps.reads!.excluded(`beheer-${A}`, A))).toBe(true);
  expect(other.deps.reads!.excluded(`beheer-${A}`, B)).toBe(false);
  expect(other.deps.reads!.excluded(`beheer-${A}`)).toBe(false);
  expect(await recorded(tok(A), other)).toBe(false);
  expect(await recorded(tok(B), other)).toBe(true);

  // DELETE removes A's own list: A's reads are recorded again, here and there
  expect((await t.call('DELETE', EXCLUSIONS, undefined, { token: tok(A) })).statusCode).toBe(204);
  expect(await recorded(tok(A))).toBe(true);
  expect(await eventually(async () => !other.deps.reads!.excluded(`beheer-${A}`, A))).toBe(true);
  expect((await get(tok(A))).json()).toMatchObject({ clientIds: [], bron: 'geen' });
});

it("changes the platform's list only by a platform administrator, which also manages an organisation's by naming it", async () => {
  // an organisation's administrator cannot act in the default tenant (where the platform's list is managed)
  const refused = await put(['*'], tok(A), { [TENANT_HEADER]: t.config.ZGW_DEFAULT_TENANT });
  expect(refused.statusCode).toBe(403);
  expect(refused.json()).toMatchObject({ status: 403, code: 'platform-admin' });
  expect(await t.mongo.db.collection('settings').findOne({ _id: AUDIT_EXCLUSIONS_SETTING as never })).toBeNull();

  // the platform administrator's list holds for every organisation
  expect((await put([`beheer-${B}`])).json()).toMatchObject({ clientIds: [`beheer-${B}`], bron: 'beheer' });
  expect(await recorded(tok(B))).toBe(false);
  expect((await get(tok(A))).json().platform).toMatchObject({ clientIds: [`beheer-${B}`], bron: 'beheer', updatedBy: 'test-admin' });
  expect((await t.call('DELETE', EXCLUSIONS)).statusCode).toBe(204);
  expect(await recorded(tok(B))).toBe(true);

  // naming organisation B, it manages B's own list (B's reads only)
  const forB = await put([`beheer-*`], undefined, { [TENANT_HEADER]: B });
  expect(forB.statusCode).toBe(200);
  expect(forB.json()).toMatchObject({ clientIds: ['beheer-*'], tenant: B });
  expect(await recorded(tok(B))).toBe(false);
  expect(await recorded(tok(A))).toBe(true);
  expect((await get(tok(B))).json()).toMatchObject({ clientIds: ['beheer-*'], bron: 'beheer', updatedBy: 'test-admin' });
  expect((await t.call('DELETE', EXCLUSIONS, undefined, { headers: { [TENANT_HEADER]: B } })).statusCode).toBe(204);
  expect(await recorded(tok(B))).toBe(true);
});

it("refuses a bad list from an organisation's administrator in the ZGW problem format", async () => {
  const res = await put(['ok', 'a,b'], tok(A));
  expect(res.statusCode).toBe(400);
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(res.json()).toMatchObject({ status: 400, code: 'invalid', invalidParams: [expect.objectContaining({ name: 'clientIds.1' })] });
  expect(await t.mongo.db.collection('settings').findOne({ _id: tenantExclusionsId(A) as never })).toBeNull();
});

it("moves an organisation's list along when its RSIN is renamed", async () => {
  const C = '100000009';
  expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: C, naam: 'Gemeente C' })).statusCode).toBe(201);
  expect((await put(['c-*'], undefined, { [TENANT_HEADER]: C })).statusCode).toBe(200);
  const to = '100000022';
  await t.deps.tenants.rename(C, to);
  const settings = t.mongo.db.collection<{ _id: string }>('settings');
  expect(await settings.findOne({ _id: tenantExclusionsId(C) })).toBeNull();
  expect(await settings.findOne({ _id: tenantExclusionsId(to) })).toMatchObject({ clientIds: ['c-*'], tenant: to });
});

it("shows an organisation's administrator its own list on the audit screen, with the platform's beside it", async () => {
  expect(await new AdminUsers(t.mongo.db).create('scherm-a', PASSWORD, A)).toBe(true);
  const b = new AdminBrowser(t);
  expect((await b.login('scherm-a', PASSWORD)).statusCode).toBe(303);
  await b.get('/admin/');
  const page = await b.get('/admin/audit');
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain(A);
  expect(page.body).toContain('<code>batch.*</code>');
  const saved = await b.post('/admin/audit', { clientIds: `beheer-${A}\nrapportage-*` });
  expect(saved.headers.location).toBe('/admin/audit?gedaan=opgeslagen');
  expect((await get(tok(A))).json()).toMatchObject({ clientIds: [`beheer-${A}`, 'rapportage-*'], tenant: A, platform: { clientIds: ['batch.*'] } });
  expect(await recorded(tok(A))).toBe(false);
  expect((await get()).json().clientIds).toEqual(['batch.*']);
  const removed = await b.post('/admin/audit/herstel');
  expect(removed.headers.location).toBe('/admin/audit?gedaan=verwijderd');
  expect((await get(tok(A))).json()).toMatchObject({ clientIds: [], bron: 'geen' });
  expect(await recorded(tok(A))).toBe(true);
});
