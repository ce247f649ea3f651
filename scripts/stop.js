#!/usr/bin/env node
// `npm run stop`: stops what the project started on this machine: a running `npm start` (its services, then the
// engines it started) and then every engine of scripts/engines.sh still running for this data directory.
const { spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const runFile = path.join(process.env.ZGW_DATA_DIR ?? path.join(root, '.data'), 'run', 'platform.json');
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

(async () => {
  let platform;
  try {
    platform = JSON.parse(readFileSync(runFile, 'utf8'));
  } catch {
    platform = undefined;
  }
  if (platform && alive(platform.pid)) {
    console.log(`stop: npm start (pid ${platform.pid}) stops its services and the engines it started`);
    process.kill(platform.pid, 'SIGTERM');
    for (let waited = 0; alive(platform.pid) && waited < 60_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
    if (alive(platform.pid)) console.log(`stop: npm start (pid ${platform.pid}) did not stop within a minute`);
  } else {
    console.log('stop: no npm start running');
  }
  const res = spawnSync('bash', ['scripts/engines.sh', 'stop'], { cwd: root, stdio: 'inherit' });
  process.exitCode = res.status ?? 1;
})();
