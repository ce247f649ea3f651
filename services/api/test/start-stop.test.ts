import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './harness';
import { freePort } from './local-store.helpers';

// `npm start` as a process supervisor, on the running engines (so it starts none and stops none).
const ROOT = join(__dirname, '..', '..', '..');

interface Platform {
  child: ChildProcess;
  lines: string[];
  ports: { api: number; notifier: number; audit: number; transfer: number };
  dataDir: string;
  exited: Promise<number | null>;
}

async function start(over: Partial<Platform['ports']> = {}, extra: Record<string, string> = {}): Promise<Platform> {
  const ports = { api: await freePort(), notifier: await freePort(), audit: await freePort(), transfer: await freePort(), ...over };
  const dataDir = mkdtempSync(join(tmpdir(), 'zgw-start-'));
  const id = randomUUID().slice(0, 8);
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
      PORT: String(ports.api),
      PUBLIC_BASE_URL: `http://127.0.0.1:${ports.api}`,
      NOTIFIER_METRICS_PORT: String(ports.notifier),
      AUDIT_METRICS_PORT: String(ports.audit),
      TRANSFER_METRICS_PORT: String(ports.transfer),
      MONGODB_DB: `zgw_test_start_${id}`,
      KAFKA_TOPIC_PREFIX: `test-start-${id}-`,
      TRANSFER_TASK_QUEUE: `test-start-${id}`,
      ZGW_DATA_DIR: dataDir,
      AUDIT_SPOOL_DIR: join(dataDir, 'spool'),
      LOG_LEVEL: 'warn',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, lines, ports, dataDir, exited };
}

const answers = async (port: number, path: string) => (await fetch(`http://127.0.0.1:${port}${path}`).catch(() => undefined))?.status === 200;
const pidOf = (p: Platform, name: string) =>
  Number(
    [...p.lines]
      .reverse()
      .map((l) => new RegExp(`^start +\\| ${name} started \\(pid (\\d+)\\)`).exec(l)?.[1])
      .find(Boolean),
  );
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('a service that dies is started again with a line saying why; SIGTERM stops every service and npm start ends', async () => {
  const p = await start();
  try {
    expect(
      await eventually(
        async () =>
          (await answers(p.ports.api, '/ready')) &&
          (await answers(p.ports.notifier, '/health')) &&
          (await answers(p.ports.audit, '/health')) &&
          (await answers(p.ports.transfer, '/health')),
        90_000,
      ),
    ).toBe(true);
    expect(existsSync(join(p.dataDir, 'run', 'platform.json'))).toBe(true);
    const first = pidOf(p, 'notifier');
    process.kill(first, 'SIGKILL');
    expect(await eventually(async () => p.lines.some((l) => /notifier exited \(SIGKILL\).*: starting it again in 1 s$/.test(l)), 10_000)).toBe(true);
    expect(await eventually(async () => pidOf(p, 'notifier') !== first && (await answers(p.ports.notifier, '/ready')), 30_000)).toBe(true);
    const pids = ['api', 'notifier', 'audit', 'transfer'].map((n) => pidOf(p, n));
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(existsSync(join(p.dataDir, 'run', 'platform.json'))).toBe(false);
  } finally {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  }
}, 180_000);

test('a service that keeps failing stops the platform, naming it and its last error', async () => {
  const taken: Server = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
  const p = await start({ audit: (taken.address() as { port: number }).port });
  try {
    expect(await Promise.race([p.exited, new Promise((r) => setTimeout(() => r('still running'), 120_000))])).toBe(1);
    expect(p.lines.filter((l) => /audit exited \(code 1\).*: starting it again in/.test(l))).toHaveLength(4);
    expect(p.lines.join('\n')).toMatch(/audit exited \(code 1\); last error: .*EADDRINUSE/);
    expect(p.lines.some((l) => /audit failed 5 times within 60 s: stopping the platform/.test(l))).toBe(true);
  } finally {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    taken.close();
  }
}, 180_000);

test('an invalid configuration stops npm start at once: a line per invalid key, exit code 78, nothing started', async () => {
  const p = await start({}, { JWT_LEEWAY_SECONDS: '-1', LOG_LEVEL: 'loud', OIDC_API_ISSUER: 'https://idp.gemeente.example' });
  try {
    expect(await Promise.race([p.exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))])).toBe(78);
    const said = p.lines.join('\n');
    expect(said).toMatch(/^start +\| invalid configuration: JWT_LEEWAY_SECONDS: .*>=0/m);
    expect(said).toMatch(/^start +\| invalid configuration: LOG_LEVEL: .*"warn"/m);
    expect(said).toMatch(/^start +\| invalid configuration: OIDC_API_AUDIENCE: required with OIDC_API_ISSUER$/m);
    // no engine was started for it and no service ran
    expect(said).not.toMatch(/started \(pid|engines\.sh|ready /);
    expect(existsSync(join(p.dataDir, 'run', 'platform.json'))).toBe(false);
  } finally {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  }
}, 90_000);
