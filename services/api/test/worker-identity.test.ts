import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig, TENANT_HEADER } from '@zgw/shared';
import { bootstrapTransferClient, ensureAllRights } from '../src/bootstrap';
import { Credentials } from '../src/common/auth/credentials';
import { startApp, token, type TestApp } from './harness';

/**
 * The transfer worker's identity (TRANSFER_CLIENT_ID) is the platform's: no organisation's administrator, no operator
 * command and no ZGW_CLIENTS entry registers a credential under it (refused as any taken client id is, without saying
 * whose it is), and only a token signed with TRANSFER_SECRET acts for another organisation; without that secret, no
 * token does. A TRANSFER_SECRET shorter than 32 characters stops the API and the worker at start.
 */
const A = '123456782';
const B = '111222333';
const APPLICATIES = '/autorisaties/api/v1/applicaties';
const CREDENTIALS = '/admin/api/v1/credentials';
const ROOT = join(__dirname, '..', '..', '..');
const WORKER_SECRET = 'a worker secret of at least thirty-two characters';

let t: TestApp;
let worker: string;
const tokenOf = (rsin: string) => token(`client-${rsin}`, `client-${rsin}-secret`);
/** A refusal as the client sees it, without what differs per request. */
const answer = (res: { statusCode: number; json(): Record<string, unknown> }) => {
  const { instance: _instance, ...rest } = res.json();
  return { status: res.statusCode, ...rest };
};

beforeAll(async () => {
  // as `node services/api/dist/main.js` runs without TRANSFER_SECRET
  t = await startApp({ TRANSFER_SECRET: '' });
  worker = t.config.TRANSFER_CLIENT_ID;
  for (const rsin of [A, B]) {
    expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam: `Gemeente ${rsin}` })).statusCode).toBe(201);
    const client = `client-${rsin}`;
    expect((await t.call('POST', CREDENTIALS, { identifier: client, secret: `${client}-secret`, tenant: rsin })).statusCode).toBe(201);
    await ensureAllRights(t.deps.db, client, rsin, `Applicatie van ${rsin}`);
  }
}, 60_000);
afterAll(async () => t?.close());

/** Whether `tok` reads B's applicaties (acting for B). */
const readsB = async (tok: string) => {
  const res = await t.call('GET', APPLICATIES, undefined, { token: tok, headers: { [TENANT_HEADER]: B } });
  return res.statusCode === 200 && JSON.stringify(res.json()).includes(`client-${B}`);
};

describe("the worker's client id", () => {
  it("is refused to an organisation's administrator and to a platform administrator, as any taken client id is", async () => {
    const secret = 'the secret an attacker chose';
    const taken = await t.call('POST', CREDENTIALS, { identifier: `client-${B}`, secret }, { token: tokenOf(A) });
    expect(taken.statusCode).toBe(400);
    const byA = await t.call('POST', CREDENTIALS, { identifier: worker, secret }, { token: tokenOf(A) });
    expect(answer(byA)).toEqual(answer(taken));
    expect(byA.json().invalidParams).toEqual([expect.objectContaining({ name: 'identifier', code: 'unique' })]);
    expect(byA.body).not.toMatch(/transfer|worker|overdracht/i);
    const byPlatform = await t.call('POST', CREDENTIALS, { identifier: worker, secret });
    expect(answer(byPlatform)).toEqual(answer(taken));
    expect(await t.mongo.db.collection('credentials').countDocuments({ _id: worker as never })).toBe(0);
    // and the token A's administrator would sign with it acts nowhere
    expect(await readsB(token(worker, secret))).toBe(false);
    expect((await t.call('GET', APPLICATIES, undefined, { token: token(worker, secret) })).statusCode).toBe(403);
  });

  it('without TRANSFER_SECRET acts for no organisation, not even with a credential stored under it before', async () => {
    // what an earlier build let an organisation's administrator store
    const stale = 'a secret stored under the worker id earlier';
    await new Credentials(t.mongo.db, t.deps.pii, t.config.ZGW_DEFAULT_TENANT).set(worker, A, stale);
    t.deps.caches.clear('credentials');
    expect(await readsB(token(worker, stale))).toBe(false);
    const own = await t.call('GET', APPLICATIES, undefined, { token: token(worker, stale) });
    expect(own.statusCode).toBe(403);
    expect(own.json()).toMatchObject({ status: 403, code: expect.any(String), title: expect.any(String) });
  });

  it('with TRANSFER_SECRET acts for another organisation only with a token signed with that secret', async () => {
    // (an API of several organisations starts with /metrics behind a token)
    const withSecret = await startApp({ TRANSFER_SECRET: WORKER_SECRET, METRICS_TOKEN: 'a token for prometheus' }, { shareWith: t });
    try {
      // the start takes the worker's id back from the organisation that held it
      await bootstrapTransferClient(withSecret.mongo.db, withSecret.deps.pii, withSecret.config, createLogger('test', 'silent'));
      const as = (tok: string) => withSecret.call('GET', APPLICATIES, undefined, { token: tok, headers: { [TENANT_HEADER]: B } });
      const acting = await as(token(worker, WORKER_SECRET));
      expect(acting.statusCode).toBe(200);
      expect(JSON.stringify(acting.json())).toContain(`client-${B}`);
      expect((await as(token(worker, 'a secret stored under the worker id earlier'))).statusCode).toBe(403);
      expect((await as(token(worker, 'x'.repeat(40)))).statusCode).toBe(403);
    } finally {
      await withSecret.close();
    }
  });

  it('is refused by the credentials command as any taken client id is', async () => {
    const cli = (...args: string[]) =>
      new Promise<{ code: number; stderr: string; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(__dirname, '..', 'dist', 'cli', 'credentials.js'), ...args],
          {
            env: {
              ...process.env,
              MONGODB_URL: t.config.MONGODB_URL,
              MONGODB_DB: t.config.MONGODB_DB,
              KAFKA_BROKERS: t.config.KAFKA_BROKERS,
              KAFKA_TOPIC_PREFIX: t.topicPrefix,
            },
            encoding: 'utf8',
          },
          (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
        );
      });
    const before = await t.mongo.db.collection('credentials').findOne({ _id: worker as never });
    const taken = await cli('add', `client-${B}`, '--tenant', A, '--secret', 'the secret an attacker chose');
    expect(taken.code).not.toBe(0);
    const refused = await cli('add', worker, '--tenant', A, '--secret', 'the secret an attacker chose');
    expect(refused.code).toBe(taken.code);
    expect(refused.stderr.replace(worker, 'ID')).toBe(taken.stderr.replace(`client-${B}`, 'ID'));
    const own = await cli('add', worker, '--all-rights');
    expect(own.code).toBe(taken.code);
    expect(own.stderr.replace(worker, 'ID')).toBe(taken.stderr.replace(`client-${B}`, 'ID'));
    expect(await t.mongo.db.collection('credentials').findOne({ _id: worker as never })).toEqual(before);
  }, 30_000);
});

/** The API (dist/main.js) as an operator starts it, on a database of its own; its exit code and output (or 'listening'). */
async function startApi(env: Record<string, string>, main = join(ROOT, 'services', 'api', 'dist', 'main.js')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'zgw-start-'));
  const id = randomUUID().slice(0, 8);
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      MONGODB_DB: `zgw_test_wid_${id}`,
      KAFKA_TOPIC_PREFIX: `test-wid-${id}-`,
      ZGW_DATA_DIR: dataDir,
      AUDIT_SPOOL_DIR: join(dataDir, 'spool'),
      TRANSFER_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const done = new Promise<{ code: number | null | 'listening'; output: string }>((resolve) => {
    const seen = (d: Buffer) => {
      output += d.toString();
      if (/"msg":"(api listening|transfer worker polling)"/.test(output)) resolve({ code: 'listening', output });
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => resolve({ code, output }));
  });
  try {
    return await done;
  } finally {
    // (what is asked of it is its start: it need not stop gracefully)
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    await t.mongo.client
      .db(`zgw_test_wid_${id}`)
      .dropDatabase()
      .catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('at start', () => {
  it('ZGW_CLIENTS naming the worker is refused as any taken client id is', async () => {
    const started = await startApi({ ZGW_CLIENTS: `${worker}:a secret chosen by the operator:all@${A}`, TRANSFER_SECRET: '' });
    expect(started.code).not.toBe('listening');
    expect(started.code).not.toBe(0);
    const why = started.output.split('\n').find((l) => l.includes('failed to start'));
    expect(why).toContain(`client id "${worker}" is already registered: client ids are unique across the installation`);
    expect(why!.replace(worker, 'ID')).not.toMatch(/worker|TRANSFER|overdracht/i);
  }, 60_000);

  it('the API and the transfer worker refuse a TRANSFER_SECRET shorter than 32 characters, with a clear message', async () => {
    expect(() => loadConfig({ TRANSFER_SECRET: 'transfer-test-secret' })).toThrow(/TRANSFER_SECRET: .*32 characters/);
    expect(loadConfig({ TRANSFER_SECRET: WORKER_SECRET }).TRANSFER_SECRET).toBe(WORKER_SECRET);
    expect(loadConfig({ TRANSFER_SECRET: '' }).TRANSFER_SECRET).toBe('');
    for (const main of [join(ROOT, 'services', 'api', 'dist', 'main.js'), join(ROOT, 'services', 'transfer', 'dist', 'main.js')]) {
      const started = await startApi({ TRANSFER_SECRET: 'change-me-transfer-secret' }, main);
      expect({ main, code: started.code }).toEqual({ main, code: 78 });
      expect(started.output).toMatch(/TRANSFER_SECRET: .*32 characters/);
    }
  }, 60_000);
});
