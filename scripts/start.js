#!/usr/bin/env node
// Starts the whole platform on this machine: builds, starts the engines (scripts/engines.sh), then the API and
// the three workers, with their output prefixed. Ctrl-C (or SIGTERM) stops the services; the engines keep
// running for a quick restart (`npm run engines -- stop` stops them).
const { execFileSync, spawn } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

run('npx', ['tsc', '-b']);
const external = process.env.MONGODB_URL && process.env.KAFKA_BROKERS && process.env.TEMPORAL_ADDRESS;
const env = { ...process.env };
if (!external) {
  run('bash', ['scripts/engines.sh', 'start']);
  const out = execFileSync('bash', ['scripts/engines.sh', 'env'], { cwd: root, encoding: 'utf8' });
  for (const m of out.matchAll(/export (\w+)=(\S+)/g)) if (!process.env[m[1]]) env[m[1]] = m[2];
}

// The transfer worker reaches the API as its own client; without a configured secret, one is made for this run.
env.TRANSFER_SECRET ||= require('node:crypto').randomBytes(24).toString('base64url');

const services = ['api', 'notifier', 'audit', 'transfer'];
const children = services.map((name) => {
  const child = spawn(process.execPath, [path.join(root, 'services', name, 'dist', 'main.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop();
      for (const line of lines) process.stdout.write(`${name.padEnd(8)} | ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`${name.padEnd(8)} | exited (${signal ?? code})\n`);
    if (!stopping) stop(1);
  });
  return child;
});

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  let left = children.filter((c) => c.exitCode === null).length;
  if (!left) process.exit(code);
  for (const c of children) c.once('exit', () => --left <= 0 && process.exit(code));
  setTimeout(() => process.exit(code), 20_000).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
