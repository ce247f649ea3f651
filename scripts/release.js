#!/usr/bin/env node
// `npm run release [-- YYYY.MM.DD]`: sets the release label (the version of the root package and of every workspace,
// shown by `GET /` and the logs) to the given date, or today's (UTC), and brings package-lock.json in line.
// Commit the result and tag it; the label is the date of the release.
const { execFileSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const label = process.argv[2] ?? new Date().toISOString().slice(0, 10).replace(/-/g, '.');
const m = /^(\d{4})\.(\d{2})\.(\d{2})$/.exec(label);
if (!m || Number.isNaN(Date.parse(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`))) {
  console.error(`release: "${label}" is not a date as YYYY.MM.DD`);
  process.exit(2);
}
// A package version is semver, without leading zeros: 2026.01.05 is stored as 2026.1.5 (releaseLabel() shows it as
// 2026.01.05 again).
const version = `${Number(m[1])}.${Number(m[2])}.${Number(m[3])}`;
const root_ = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const files = ['package.json', ...root_.workspaces.map((w) => path.join(w, 'package.json'))];
for (const file of files) {
  const full = path.join(root, file);
  const pkg = JSON.parse(readFileSync(full, 'utf8'));
  pkg.version = version;
  if (pkg.dependencies?.['@zgw/shared']) pkg.dependencies['@zgw/shared'] = version;
  writeFileSync(full, `${JSON.stringify(pkg, null, 2)}\n`);
}
execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
console.log(`release: ${label} (${files.length} package files and package-lock.json); GET / shows it after the next build and start`);
