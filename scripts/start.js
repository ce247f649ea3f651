#!/usr/bin/env node
// Starts the whole platform on this machine: builds, starts the engines that are not running yet
// (scripts/engines.sh), then the API and the three workers, with their output shown (scripts/console-format.js: one
// readable line per event on a terminal, the JSON lines after the service's name otherwise), and keeps them running as a
// process supervisor would: a service that exits on its own is started again after a growing delay (1 s, 2 s, 4 s,
// ... 30 s), with a line saying why; one that fails MAX_FAILURES times within FAILURE_WINDOW_MS stops the platform,
// naming it and its last error. Ctrl-C or SIGTERM (or `npm run stop`) stops the services, then the engines this run
// started; engines that were already running keep running. An invalid configuration is no crash to retry: it is said
// (one line per key) and the platform does not start, or stops when a service finds it (exit code 78, EX_CONFIG).
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
// Document content on S3 without an S3 of its own (S3_ENDPOINT): the local S3 engine too, and the platform pointed at it.
const ENGINES = ['mongo', 'kafka', 'temporal', ...(process.env.INHOUD_STORE === 's3' && !process.env.S3_ENDPOINT ? ['s3'] : [])];
const MAX_FAILURES = 5;
const FAILURE_WINDOW_MS = 60_000;
const MAX_DELAY_MS = 30_000;
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
// On a terminal one readable line per event, else (and with LOG_FORMAT=json) the services' JSON lines as they are
// (scripts/console-format.js); the services write JSON either way.
const { consoleFormat, formatLine, summary } = require('./console-format');
const shown = consoleFormat(process.env, process.stdout);
/** A line of this supervisor's own (`level` for a readable line). */
function say(line, level = 'info') {
  const own = shown.pretty ? JSON.stringify({ level, time: Date.now(), msg: line }) : line;
  process.stdout.write(`${formatLine('start', own, shown)}\n`);
}

run('npx', ['tsc', '-b']);
const { ConfigError, EXIT_CONFIG, loadConfig } = require('../shared/dist/config');
try {
  loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  for (const problem of err.problems) say(`invalid configuration: ${problem}`, 'error');
  say('not started: set these and start again', 'error');
  process.exit(EXIT_CONFIG);
}
const external = process.env.MONGODB_URL && process.env.KAFKA_BROKERS && process.env.TEMPORAL_ADDRESS;
const env = { ...process.env };
/** The engines this run started (and stops when it ends). */
let started = [];
// With engines of its own (MONGODB_URL, KAFKA_BROKERS, TEMPORAL_ADDRESS) only the local S3 engine, when it is wanted.
const wanted = external ? ENGINES.filter((name) => name === 's3') : ENGINES;
if (wanted.length) {
  const up = (name) => spawnSync('bash', ['scripts/engines.sh', 'status', name], { cwd: root, stdio: 'ignore' }).status === 0;
  started = wanted.filter((name) => !up(name));
  run('bash', ['scripts/engines.sh', 'start', ...wanted]);
  const out = execFileSync('bash', ['scripts/engines.sh', 'env', ...wanted], { cwd: root, encoding: 'utf8' });
  for (const m of out.matchAll(/export (\w+)=(\S+)/g)) if (!process.env[m[1]]) env[m[1]] = m[2];
}
// `npm run stop` finds this run here.
const runFile = path.join(process.env.ZGW_DATA_DIR ?? path.join(root, '.data'), 'run', 'platform.json');
mkdirSync(path.dirname(runFile), { recursive: true });
writeFileSync(runFile, JSON.stringify({ pid: process.pid, engines: started }));

// The transfer worker reaches the API as its own client; without a configured secret, one is made for this run.
env.TRANSFER_SECRET ||= require('node:crypto').randomBytes(24).toString('base64url');
// /metrics asks for a token once the platform serves more than one organisation (the API refuses to start without one
// then): without a configured METRICS_TOKEN, one kept in the data folder (readable by this user only) serves every run.
if (!env.METRICS_TOKEN && !/^true$/i.test(env.METRICS_PUBLIC ?? '')) {
  const tokenFile = path.join(path.dirname(path.dirname(runFile)), 'metrics-token');
  if (!existsSync(tokenFile)) writeFileSync(tokenFile, require('node:crypto').randomBytes(24).toString('base64url'), { mode: 0o600 });
  env.METRICS_TOKEN = readFileSync(tokenFile, 'utf8').trim();
  say(`/metrics asks for the token in ${tokenFile} (Authorization: Bearer <token>)`);
}

let stopping = false;
const services = ['api', 'notifier', 'audit', 'transfer'].map((name) => ({ name, child: undefined, failures: [], lastError: '' }));

const { NODE_ARGS } = require('./node-args');

function launch(s) {
  const child = spawn(process.execPath, [...(NODE_ARGS[s.name] ?? []), path.join(root, 'services', s.name, 'dist', 'main.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  s.child = child;
  say(`${s.name} started (pid ${child.pid})`);
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop();
      for (const line of lines) {
        process.stdout.write(`${formatLine(s.name, line, shown)}\n`);
        // (the line of an error, not the frames of its stack; on a terminal as it was shown, without the time)
        if ((stream === child.stderr && !/^\s+at /.test(line)) || /"level":"(error|fatal)"/.test(line))
          s.lastError = ((shown.pretty && summary(line)) || line).slice(0, 500);
      }
    });
  }
  child.on('exit', (code, signal) => {
    s.child = undefined;
    if (stopping) return;
    const now = Date.now();
    s.failures = [...s.failures.filter((t) => now - t < FAILURE_WINDOW_MS), now];
    const why = `${s.name} exited (${signal ?? `code ${code}`})${s.lastError ? `; last error: ${s.lastError}` : ''}`;
    if (code === EXIT_CONFIG) {
      say(`${why}`, 'error');
      say(`${s.name} stopped on its configuration: stopping the platform`, 'error');
      stop(EXIT_CONFIG);
      return;
    }
    if (s.failures.length >= MAX_FAILURES) {
      say(`${why}`, 'error');
      say(`${s.name} failed ${s.failures.length} times within ${FAILURE_WINDOW_MS / 1000} s: stopping the platform`, 'error');
      stop(1);
      return;
    }
    const delay = Math.min(MAX_DELAY_MS, 1000 * 2 ** (s.failures.length - 1));
    say(`${why}: starting it again in ${delay / 1000} s`, 'warn');
    // (not unref'd: while every service waits for its restart, this timer is what keeps the supervisor running)
    setTimeout(() => stopping || launch(s), delay);
  });
}
services.forEach(launch);

function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  const running = services.filter((s) => s.child);
  for (const s of running) s.child.kill('SIGTERM');
  let left = running.length;
  const finish = () => {
    rmSync(runFile, { force: true });
    if (started.length) {
      say(`stopping the engines this run started: ${started.join(', ')}`);
      spawnSync('bash', ['scripts/engines.sh', 'stop', ...started], { cwd: root, stdio: 'inherit' });
    }
    process.exit(code);
  };
  if (!left) return finish();
  for (const s of running) s.child?.once('exit', () => --left <= 0 && finish());
  setTimeout(finish, 20_000).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
