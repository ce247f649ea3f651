import { Writable } from 'node:stream';
import { newPiiKey } from '@zgw/shared';
import { ensureAllRights } from '../src/bootstrap';
import { startApp, token, type TestApp } from './harness';

/**
 * The codec endpoint of Temporal's web UI and CLI (`POST .../encode`, `.../decode`, Temporal's codec-server protocol):
 * a platform administrator reads the sealed payloads of a transfer's history in the clear; nobody else (not an
 * organisation's administrator); the UI's origin only.
 */
const PATH = '/admin/api/v1/temporal-codec';
const BSN = '999993653';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (s: string) => Buffer.from(s, 'base64').toString();
const plain = { metadata: { encoding: b64('json/plain') }, data: b64(JSON.stringify({ inpBsn: BSN, zaak: 'ZAAK-1' })) };

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ ZGW_PII_KEYS: newPiiKey('k1'), LOG_LEVEL: 'info', TEMPORAL_UI_URL: 'http://127.0.0.1:8233/' }, { logTo: sink });
});
afterAll(async () => t.close());

type Payloads = { payloads: { metadata: Record<string, string>; data: string }[] };

it('seals payloads with the platform keys and opens them again, as the transfer worker does', async () => {
  const sealed = await t.call('POST', `${PATH}/encode`, { payloads: [plain] }, { headers: { 'x-namespace': t.config.TEMPORAL_NAMESPACE } });
  expect(sealed.statusCode).toBe(200);
  const [p] = (sealed.json() as Payloads).payloads;
  expect(text(p!.metadata.encoding!)).toBe('binary/encrypted');
  expect(text(p!.metadata['encryption-key-id']!)).toBe('k1');
  expect(text(p!.data)).not.toContain(BSN);
  const opened = await t.call('POST', `${PATH}/decode`, sealed.json());
  expect(opened.statusCode).toBe(200);
  expect(opened.json()).toEqual({ payloads: [plain] });
  // what is not sealed passes as it is
  expect((await t.call('POST', `${PATH}/decode`, { payloads: [plain] })).json()).toEqual({ payloads: [plain] });
  // every opening is logged with who asked, never with what it showed
  const logged = lines.filter((l) => l.includes('temporal payloads opened'));
  expect(logged.length).toBeGreaterThan(0);
  expect(JSON.parse(logged.at(-1)!)).toMatchObject({ by: 'test-admin', payloads: 1 });
  expect(lines.join('\n')).not.toContain(BSN);
});

it('is for administrators only, and answers the web UI origin a CORS preflight', async () => {
  await t.client('codec-zonder-rechten', 'codec-zonder-rechten-geheim');
  const other = token('codec-zonder-rechten', 'codec-zonder-rechten-geheim');
  expect((await t.call('POST', `${PATH}/decode`, { payloads: [plain] }, { token: other })).statusCode).toBe(403);
  expect((await t.call('POST', `${PATH}/decode`, { payloads: [plain] }, { token: null })).statusCode).toBe(401);
  const preflight = await t.app.inject({
    method: 'OPTIONS',
    url: `${PATH}/decode`,
    headers: { origin: 'http://127.0.0.1:8233', 'access-control-request-method': 'POST' },
  });
  expect(preflight.statusCode).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe('http://127.0.0.1:8233');
  expect(String(preflight.headers['access-control-allow-headers'])).toContain('Authorization');
});

it('refuses bad input in the ZGW error format: another namespace, no payloads, a damaged sealed payload', async () => {
  const params = (r: { json(): unknown }) =>
    (r.json() as { invalidParams: { name: string; code: string }[] }).invalidParams.map((p) => `${p.name}:${p.code}`);
  const ns = await t.call('POST', `${PATH}/decode`, { payloads: [plain] }, { headers: { 'x-namespace': 'elders' } });
  expect(ns.statusCode).toBe(400);
  expect(params(ns)).toEqual(['X-Namespace:invalid']);
  expect((await t.call('POST', `${PATH}/decode`, {})).statusCode).toBe(400);
  expect((await t.call('POST', `${PATH}/decode`, { payloads: [{ data: 'niet base64!' }] })).statusCode).toBe(400);
  const sealed = (await t.call('POST', `${PATH}/encode`, { payloads: [plain] })).json() as Payloads;
  const token_ = text(sealed.payloads[0]!.data);
  const damaged = { payloads: [{ ...sealed.payloads[0]!, data: b64(`${token_.slice(0, -4)}AAAA`) }] };
  const refused = await t.call('POST', `${PATH}/decode`, damaged);
  expect(refused.statusCode).toBe(400);
  expect(params(refused)).toEqual(['payloads:invalid']);
});

it('without a web UI (TEMPORAL_UI_URL empty) the API starts and the codec serves the CLI, with no origin allowed', async () => {
  const headless = await startApp({ ZGW_PII_KEYS: newPiiKey('k1'), TEMPORAL_UI_URL: '' });
  try {
    const res = await headless.call('POST', `${PATH}/encode`, { payloads: [plain] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  } finally {
    await headless.close();
  }
  await expect(startApp({ TEMPORAL_UI_URL: 'not a url' })).rejects.toThrow(/TEMPORAL_UI_URL/);
});

it("is for platform administrators only: an organisation's administrator opens no payload of any organisation (403 platform-admin)", async () => {
  // a payload does not say whose it is (activity results and failures carry no tenant), so none is an organisation's
  const A = '123456782';
  expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: A, naam: 'Gemeente A' })).statusCode).toBe(201);
  expect((await t.call('POST', '/admin/api/v1/credentials', { identifier: 'beheer-a', secret: 'beheer-a-secret', tenant: A })).statusCode).toBe(201);
  await ensureAllRights(t.deps.db, 'beheer-a', A);
  const orgAdmin = token('beheer-a', 'beheer-a-secret');
  expect((await t.call('GET', '/admin/api/v1/credentials', undefined, { token: orgAdmin })).statusCode).toBe(200); // an administrator
  const sealed = (await t.call('POST', `${PATH}/encode`, { payloads: [plain] })).json() as Payloads;
  const before = lines.length;
  for (const op of ['decode', 'encode']) {
    const res = await t.call('POST', `${PATH}/${op}`, op === 'decode' ? sealed : { payloads: [plain] }, { token: orgAdmin });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      status: 403,
      code: 'platform-admin',
      title: expect.any(String),
      instance: expect.stringMatching(/^urn:uuid:/),
    });
    expect(res.body).not.toContain(BSN);
    expect(res.body).not.toContain(b64(JSON.stringify({ inpBsn: BSN, zaak: 'ZAAK-1' })));
  }
  expect(lines.slice(before).some((l) => l.includes('temporal payloads opened'))).toBe(false);
  // the platform's administrators still open them
  expect((await t.call('POST', `${PATH}/decode`, sealed)).json()).toEqual({ payloads: [plain] });
});
