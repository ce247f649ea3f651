#!/usr/bin/env node
// The query-index check of `npm test`: reads the query shapes every test process recorded (ZGW_QUERY_LOG, see
// shared/src/query-shapes.ts) and checks each against the indexes the API declared (shared/src/query-rules.ts).
// Prints `query-index-check: N passed, N failed` (N = distinct shapes), then each failure; exits 1 on any failure.
// Usage: node scripts/query-check.js <dir> [--verbose] [--allow-empty]   (after `tsc -b`: it uses shared/dist)
const fs = require('node:fs');
const path = require('node:path');
const { SourceMap } = require('node:module');
const { checkLog, shapeText, MAX_SKIP } = require('../shared/dist/query-rules.js');

const root = path.join(__dirname, '..');
const dir = process.argv[2];
const verbose = process.argv.includes('--verbose');
const allowEmpty = process.argv.includes('--allow-empty');
if (!dir || !fs.existsSync(dir)) {
  console.log('query-index-check: 0 passed, 1 failed');
  console.log(`  no query log directory ${dir ?? '(none given)'}`);
  process.exit(1);
}
const lines = [];
for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl'))) {
  for (const l of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l));
}

// Jest runs TypeScript transpiled, so its line numbers are those of the compiled code: the same as tsc's output in
// dist/, whose source maps give the line in the .ts file.
const maps = new Map();
function sourceLine(site) {
  const m = /^(\S+?)\.ts:(\d+):(\d+)(.*)$/.exec(site);
  if (!m) return site;
  const [, file, line, col, rest] = m;
  const mapFile = path.join(root, `${file.replace(/\/src\//, '/dist/')}.js.map`);
  if (!maps.has(mapFile)) maps.set(mapFile, fs.existsSync(mapFile) ? new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8'))) : null);
  const entry = maps.get(mapFile)?.findEntry(Number(line) - 1, Number(col) - 1);
  return entry && entry.originalLine !== undefined ? `${file}.ts:${entry.originalLine + 1}${rest}` : `${file}.ts${rest}`;
}

const report = checkLog(lines);
const passed = report.shapes.length - report.failed.length;
const empty = !report.shapes.length && !allowEmpty;
console.log(`query-index-check: ${passed} passed, ${report.failed.length + (empty ? 1 : 0)} failed`);
const skips = report.shapes.filter((s) => s.maxSkip > 0);
if (skips.length) console.log(`  ${skips.length} shape(s) use skip, largest ${Math.max(...skips.map((s) => s.maxSkip))} (bound ${MAX_SKIP})`);
if (report.ignoredTestProbes) console.log(`  ${report.ignoredTestProbes} shape(s) sent by test files themselves were not checked`);
if (empty) console.log('  no query was recorded: is ZGW_QUERY_LOG reaching connectMongo?');
for (const s of verbose ? report.shapes : report.failed) {
  console.log(`${s.verdict.ok ? 'PASS' : 'FAIL'} ${shapeText(s.shape, s.maxSkip)}`);
  for (const r of s.verdict.reasons) console.log(`    ${r}`);
  for (const site of s.sites.slice(0, 3)) console.log(`    sent from ${site.split(' < ').map(sourceLine).join(' < ')}`);
}
process.exit(report.failed.length || empty ? 1 : 0);
