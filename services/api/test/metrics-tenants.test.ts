import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ensureAllRights } from '../src/bootstrap';
import { startApp, token, type TestApp } from './harness';
import { parseExposition } from './metrics.helpers';

/**
 * `/metrics` counts each tenant's requests: once the installation serves more than one organisation it is not open
 * to whoever reaches it. The start is refused while several tenants exist without METRICS_TOKEN (or METRICS_PUBLIC);
 * a tenant added while the API runs closes `/metrics` (401, an error in the log) until a token is set.
 */
const A = '123456782';
const ROOT = join(__dirname, '..', '..', '..');
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ LOG_LEVEL: 'error' }, { logTo: sink });
});
afterAll(async () => t?.close());

/** The API (dist/main.js) as an operator starts it: its exit code and output, or 'listening'. */
async function startApi(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'zgw-start-'));
  const child = spawn(process.execPath, [join(ROOT, 'services', 'api', 'dist', 'main.js')], {
    cwd: ROOT,
    // (the PII keys the tests use, found where the harness finds them)
    env: {
      ...process.env,
      PORT: '0',
      KAFKA_TOPIC_PREFIX: t.topicPrefix,
      AUDIT_SPOOL_DIR: join(dataDir, 'spool'),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  try {
    return await new Promise<{ code: number | null | 'listening'; output: string }>((resolve) => {
      const seen = (d: Buffer) => {
        output += d.toString();
        if (output.includes('"msg":"api listening"')) resolve({ code: 'listening', output });
      };
      child.stdout!.on('data', seen);
      child.stderr!.on('data', seen);
      child.once('exit', (code) => resolve({ code, output }));
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const scrape = (app: TestApp, authorization?: string) =>
  app.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

it('is open while one organisation is served, and closed (401, an error logged) once a second one is added', async () => {
  expect((await scrape(t)).statusCode).toBe(200);
  expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: A, naam: 'Gemeente A' })).statusCode).toBe(201);
  const refused = await scrape(t);
  expect(refused.statusCode).toBe(401);
  expect(refused.body).not.toContain('zgw_');
  // not with the token of an API client either
  expect((await scrape(t, `Bearer ${token()}`)).statusCode).toBe(401);
  const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.msg.includes('/metrics refused'));
  expect(logged).toEqual([expect.objectContaining({ level: 'error', msg: expect.stringContaining('METRICS_TOKEN') })]);
});

it('refuses to start with more than one tenant and neither METRICS_TOKEN nor METRICS_PUBLIC=true', async () => {
  const closed = await startApp({}, { shareWith: t });
  try {
    await expect(closed.app.ready()).rejects.toThrow(/METRICS_TOKEN: required when the installation serves more than one tenant/);
  } finally {
    await closed.close().catch(() => undefined);
  }
  // as an operator starts it: refused as an invalid configuration is (exit code 78, not restarted by `npm start`)
  const started = await startApi({ MONGODB_DB: t.config.MONGODB_DB });
  expect(started.output).toContain('METRICS_TOKEN: required when the installation serves more than one tenant');
  expect(started.code).toBe(78);

  const withToken = await startApp({ METRICS_TOKEN: 'a token for prometheus' }, { shareWith: t });
  try {
    expect((await scrape(withToken)).statusCode).toBe(401);
    expect((await scrape(withToken, 'Bearer another token')).statusCode).toBe(401);
    const scraped = await scrape(withToken, 'Bearer a token for prometheus');
    expect(scraped.statusCode).toBe(200);
  } finally {
    await withToken.close();
  }

  const open = await startApp({ METRICS_PUBLIC: 'true' }, { shareWith: t });
  try {
    expect((await scrape(open)).statusCode).toBe(200);
  } finally {
    await open.close();
  }
  await expect(startApp({ METRICS_PUBLIC: 'ja' }, { shareWith: t })).rejects.toThrow(/METRICS_PUBLIC/);
});

it("keeps each organisation's series to counts by status class (no route, no id, no client)", async () => {
  const withToken = await startApp({ METRICS_TOKEN: 'a token for prometheus' }, { shareWith: t });
  try {
    await withToken.call('POST', '/admin/api/v1/credentials', { identifier: 'client-a', secret: 'client-a-secret', tenant: A });
    await ensureAllRights(withToken.deps.db, 'client-a', A);
    expect(
      (await withToken.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('client-a', 'client-a-secret') })).statusCode,
    ).toBe(200);
    const series = parseExposition((await scrape(withToken, 'Bearer a token for prometheus')).body).filter(
      (s) => s.name === 'zgw_tenant_requests_total',
    );
    expect(series).toContainEqual({ name: 'zgw_tenant_requests_total', labels: { tenant: A, status_class: '2xx' }, value: 1 });
    for (const s of series) expect(Object.keys(s.labels).sort()).toEqual(['status_class', 'tenant']);
  } finally {
    await withToken.close();
  }
});
