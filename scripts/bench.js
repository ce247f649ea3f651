#!/usr/bin/env node
// Benchmark (not a test): loads 10,000 zaaktypen over 50 catalogussen into a fresh database and measures
// throughput and p50/p99 latency of Catalogi reads and writes at 1 and 16 concurrent clients, on 127.0.0.1.
// Reads go to an API with its read cache warm (a detail GET picks a random zaaktype of the 10,000 each time) and,
// for comparison, to a second instance on the same data with the cache off (CACHE_TTL_MS=0).
// Prints a table and writes reports/bench.json. Usage: npm run bench [-- --zaaktypen N --seconds S --only TEXT]
// (--only runs just the operations whose title contains TEXT, e.g. --only uuid).
const { execFileSync, spawn } = require('node:child_process');
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const autocannon = require('autocannon');
const { createSigner } = require('fast-jwt');

const root = path.join(__dirname, '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ZAAKTYPEN = arg('zaaktypen', 10000);
const CATALOGUSSEN = 50;
const SECONDS = arg('seconds', 10);
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : '';
const PORT = Number(process.env.BENCH_PORT ?? 8100);
const BASE = `http://127.0.0.1:${PORT}`;
const ZTC = `${BASE}/catalogi/api/v1`;
const token = createSigner({ key: 'bench-secret' })({ client_id: 'bench', user_id: 'bench', user_representation: 'Bench' });
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

const zaaktype = (catalogus, i) => ({
  identificatie: `ZT-${i}`, omschrijving: `Zaaktype ${i}`, vertrouwelijkheidaanduiding: 'openbaar', doel: 'bench', aanleiding: 'bench',
  indicatieInternOfExtern: 'extern', handelingInitiator: 'indienen', onderwerp: 'bench', handelingBehandelaar: 'behandelen',
  doorlooptijd: 'P10D', opschortingEnAanhoudingMogelijk: false, verlengingMogelijk: false, publicatieIndicatie: false,
  productenOfDiensten: [], referentieproces: { naam: 'bench' }, catalogus, besluittypen: [], deelzaaktypen: [],
  gerelateerdeZaaktypen: [], beginGeldigheid: '2024-01-01', versiedatum: '2024-01-01', verantwoordelijke: 'bench', trefwoorden: [`t${i % 10}`],
});

async function post(url, body) {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function load() {
  const catalogussen = [];
  for (let c = 0; c < CATALOGUSSEN; c++) {
    catalogussen.push((await post(`${ZTC}/catalogussen`, { domein: `B${String(c).padStart(4, '0')}`, rsin: '000000000', contactpersoonBeheerNaam: 'Bench' })).url);
  }
  let next = 0;
  const ids = [];
  const started = Date.now();
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < ZAAKTYPEN) {
      const i = next++;
      ids.push((await post(`${ZTC}/zaaktypen`, zaaktype(catalogussen[i % CATALOGUSSEN], i))).url);
    }
  }));
  return { catalogussen, ids, loadSeconds: (Date.now() - started) / 1000 };
}

function measure(title, connections, opts) {
  if (!title.includes(ONLY)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    autocannon({ duration: SECONDS, connections, headers, ...opts }, (err, r) => {
      if (err) return reject(err);
      resolve({
        title, connections, requestsPerSecond: Math.round(r.requests.average), p50ms: r.latency.p50, p99ms: r.latency.p99,
        non2xx: r.non2xx, errors: r.errors, total: r.requests.total,
      });
    });
  });
}

function startApi(port, db, env = {}) {
  const base = `http://127.0.0.1:${port}`;
  const proc = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), 'services/api/dist/main.js'], {
    cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port), PUBLIC_BASE_URL: base, MONGODB_DB: db, LOG_LEVEL: 'warn', ZGW_CLIENTS: 'bench:bench-secret:all', ...env },
  });
  return { base, proc };
}

async function up(base) {
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${base}/health`)).ok) return; } catch { /* not up yet */ }
    if (i > 60) throw new Error(`API at ${base} did not come up`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Reads every zaaktype once (16 at a time), so the read cache holds them all: the steady state of a running API. */
async function warm(paths) {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < paths.length) await (await fetch(`${BASE}${paths[next++]}`, { headers })).arrayBuffer();
  }));
}

const randomOf = (paths) => [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[Math.floor(Math.random() * paths.length)] }) }];

async function main() {
  execFileSync('npx', ['tsc', '-b'], { cwd: root, stdio: 'inherit' });
  execFileSync('bash', ['scripts/engines.sh', 'start', 'mongo', 'kafka'], { cwd: root, stdio: 'inherit' });
  const db = `zgw_bench_${Date.now()}`;
  // The measured instance keeps entries for the whole run, so reads show the steady state of a warm cache (with the
  // default CACHE_TTL_MS of 10 s, an entry is reloaded at most every 10 s).
  const api = startApi(PORT, db, { CACHE_TTL_MS: '3600000' });
  // A second instance on the same data with the read cache off, to show what a cache miss costs.
  const uncached = startApi(PORT + 1, db, { CACHE_TTL_MS: '0' });
  const ZTC_UNCACHED = `${uncached.base}/catalogi/api/v1`;
  try {
    await up(api.base);
    await up(uncached.base);
    const { catalogussen, ids, loadSeconds } = await load();
    console.log(`loaded ${ids.length} zaaktypen over ${catalogussen.length} catalogussen in ${loadSeconds.toFixed(1)} s (${Math.round(ids.length / loadSeconds)}/s at 16 clients)`);
    const deepPage = Math.ceil(ZAAKTYPEN / 100);
    const paths = ids.map((u) => new URL(u).pathname);
    const results = [];
    let n = ZAAKTYPEN;
    for (const connections of [1, 16]) {
      results.push(await measure('GET /zaaktypen (page 1)', connections, { url: `${ZTC}/zaaktypen?status=alles` }));
      results.push(await measure(`GET /zaaktypen (page ${deepPage})`, connections, { url: `${ZTC}/zaaktypen?status=alles&page=${deepPage}` }));
      if ('GET /zaaktypen/{uuid}'.includes(ONLY)) await warm(paths);
      results.push(await measure('GET /zaaktypen/{uuid}', connections, { url: BASE, requests: randomOf(paths) }));
      results.push(await measure('GET /zaaktypen (page 1), no cache', connections, { url: `${ZTC_UNCACHED}/zaaktypen?status=alles` }));
      results.push(await measure(`GET /zaaktypen (page ${deepPage}), no cache`, connections, { url: `${ZTC_UNCACHED}/zaaktypen?status=alles&page=${deepPage}` }));
      results.push(await measure('GET /zaaktypen/{uuid}, no cache', connections, { url: uncached.base, requests: randomOf(paths) }));
      results.push(await measure('POST /zaaktypen', connections, {
        url: `${ZTC}/zaaktypen`,
        requests: [{
          method: 'POST',
          setupRequest: (req) => {
            req.headers = { ...headers };
            req.body = JSON.stringify(zaaktype(catalogussen[n % CATALOGUSSEN], n++));
            return req;
          },
        }],
      }));
    }
    console.log('\n| operation | clients | req/s | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|---|');
    for (const r of results.filter(Boolean)) console.log(`| ${r.title} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50ms} | ${r.p99ms} | ${r.non2xx} |`);
    mkdirSync(path.join(root, 'reports'), { recursive: true });
    writeFileSync(path.join(root, 'reports', 'bench.json'), JSON.stringify({ zaaktypen: ZAAKTYPEN, catalogussen: CATALOGUSSEN, seconds: SECONDS, loadSeconds, results }, null, 2));
  } finally {
    api.proc.kill('SIGTERM');
    uncached.proc.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error('bench failed:', err.message);
  process.exit(1);
});
