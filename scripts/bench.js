#!/usr/bin/env node
// Benchmark (not a test) of the API on 127.0.0.1, at 1 and 16 concurrent clients: throughput, p50/p99 latency and the
// API process's own CPU time per request (utime + stime from /proc/<pid>/stat around each measurement).
//
// Suites:
//   catalogi  10,000 zaaktypen over 50 catalogussen; list pages, random detail reads (read cache warm, and a second
//             instance with the cache off for comparison) and creates.
//   zaken     100,000 zaken loaded through the API (each with a rol with a BSN from a pool, so a BSN finds a handful
//             of zaken, a document and a besluit; every 10th with a zaakobject); creates (with their event published to Kafka by the outbox
//             relay), random detail reads, detail with expand=rollen,zaakobjecten, list page 1 and _zoek by BSN.
//             _zoek by BSN also with expand=rollen, and in 1.7 into the documents by expand and by fields; the list filtered by zaaktype and a startdatum range, page 1 and
//             its last page. With the local store, its CPU per request and its own time per query are reported too.
//             Detail reads again on a second instance with AUDIT_READS=off: the cost of recording reads.
//   documents  1,000,000 enkelvoudiginformatieobjecten: the first --via-api (5,000) created through the API, the rest
//             bulk-loaded as copies of one of those (bench/documents-loader.js); creates with 10 KB content,
//             download, detail, list page 1 and page 10,000 of the unfiltered list (bench/documents.js).
//   documents-large  1 GiB documents (--large-mib), --parallel (1) at a time, uploaded in bestandsdelen and downloaded,
//             content in --store (gridfs, or s3: the local S3 engine unless S3_ENDPOINT is set), the API's RSS sampled
//             during both.
//   notifier  deliveries/s from --events (10,000) to --receivers (100) local receivers, one of which answers after
//             --slow-ms (5,000), through services/notifier as its own process (bench/notifier.js).
//   transfer  ZSDMS transfers per minute at --concurrent (8) in flight, internal route and external route (to a second
//             instance), --transfers (40) per route; zaken of 5 rollen, 10 statussen, 10 documents of 100 KB and 2
//             besluiten; the time of each step (bench/transfer.js). Needs Temporal (started when TEMPORAL_ADDRESS is unset).
//   pii       what sealing personal identifiers costs: _zoek by BSN with expand=rollen and rol creates at 16 clients, on
//             this build and on the last one that stored them in the clear (--plain-ref), same data (--zaken, here
//             20,000) (bench/pii.js).
//   tenants   a tenant's list page 1 and _zoek by BSN at 16 clients, alone in the store and among --tenants (200)
//             tenants of --per-tenant (500) zaken each; targets: >= 80% of the req/s alone, store query p99 < 5 ms
//             (bench/tenants.js).
//   import    the registration import end to end from a second instance holding --zaken (20,000) zaken of 2 rollen, 3
//             statussen and a document of 20 KB each: zaken/s, and the RSS growth of the API and the worker (bench/import.js).
//             Needs Temporal (started when TEMPORAL_ADDRESS is unset).
//   import-openzaak  the registration import from a real Open Zaak 1.21.0 (../shared/peers/openzaak/openzaak.sh) holding
//             --orm (5,000) zaken made by its ORM and --rijk (200) through its APIs, at --gelijktijdig requests at once
//             (the import's default unless given): zaken/s, the source's requests/s and p95, the time of each stage, and
//             each process's CPU (the platform's, the engines', Open Zaak's uWSGI and PostgreSQL) sampled every second
//             (bench/import-openzaak.js). Open Zaak's fill is kept for later runs. Needs Temporal (started when
//             TEMPORAL_ADDRESS is unset).
//   platform  the whole platform as `npm start` runs it (workers, read trail, Temporal), --zaken (here 20,000) zaken: GET
//             zaak, list page 1, the range page 1, `_zoek` by BSN with expand=rollen and creates at 16 clients, each
//             process's CPU per request (bench/platform.js).
//   `all` runs catalogi and zaken; the documents, notifier, transfer, pii, tenants, import, import-openzaak and platform
//   suites run when named.
//
// Usage: npm run bench [-- --suite zaken|catalogi|documents|documents-large|notifier|transfer|pii|tenants|import|import-openzaak|platform|all --plain-ref REF --transfers N --concurrent N --only TEXT --seconds S --zaaktypen N
//        --zaken N --documents N --via-api N --large-mib M --parallel N --store gridfs|s3 --events N --receivers N --slow-ms MS --tenants N --per-tenant N --orm N --rijk N --gelijktijdig N --keep]
//   --only TEXT  runs just the operations whose title contains TEXT (e.g. --only uuid)
//   --keep       keeps the bench databases (dropped at the end by default)
//   --source-db NAME  the import suite's source in this database, loaded once and kept (later runs import from it)
// Environment: MONGODB_URL, KAFKA_BROKERS (as for the API; when unset, scripts/engines.sh starts the default engines),
// BENCH_PORT (8100), BENCH_NODE_ARGS (e.g. --cpu-prof), BENCH_WORKER_NODE_ARGS (the same for the import suite's worker).
// Prints a table and writes reports/bench.json (one entry per suite; a suite not run keeps its previous entry).
const { execFileSync, spawn } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const autocannon = require('autocannon');
const { createSigner } = require('fast-jwt');
const { MongoClient } = require('mongodb');
const { createKafka } = require('../shared/dist');
const { documentsSuite, largeSuite } = require('./bench/documents');
const { notifierSuite } = require('./bench/notifier');
const { transferSuite } = require('./bench/transfer');
const { piiSuite } = require('./bench/pii');
const { tenantsSuite } = require('./bench/tenants');
const { importSuite } = require('./bench/import');
const { importOpenZaakSuite } = require('./bench/import-openzaak');
const { platformSuite } = require('./bench/platform');
const { NODE_ARGS } = require('./node-args');

const root = path.join(__dirname, '..');
const option = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const num = (name, dflt) => (option(name) === undefined ? dflt : Number(option(name)));
const SUITE = option('suite') ?? 'all';
const SUITES = ['catalogi', 'zaken', 'documents', 'documents-large', 'notifier', 'transfer', 'pii', 'tenants', 'import', 'import-openzaak', 'platform'];
if (![...SUITES, 'all'].includes(SUITE)) throw new Error(`--suite ${SUITE}: use ${SUITES.join(', ')} or all`);
/** `all` runs every suite but the long ones (documents: a million documents; documents-large: 1 GiB). */
const runs = (name) => SUITE === name || (SUITE === 'all' && ['catalogi', 'zaken'].includes(name));
const ZAAKTYPEN = num('zaaktypen', 10000);
const CATALOGUSSEN = 50;
const ZAKEN = num('zaken', 100000);
const DOCUMENTS = num('documents', 1000000);
const VIA_API = num('via-api', 5000);
const LARGE_MIB = num('large-mib', 1024);
const SECONDS = num('seconds', 10);
const ONLY = option('only') ?? '';
const KEEP = process.argv.includes('--keep');
const PORT = Number(process.env.BENCH_PORT ?? 8100);
const MONGODB_URL = process.env.MONGODB_URL ?? 'mongodb://127.0.0.1:27017';
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const token = createSigner({ key: 'bench-secret' })({ client_id: 'bench', user_id: 'bench', user_representation: 'Bench' });
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const CRS = { 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' };
const zrcHeaders = { ...headers, ...CRS };

// ---------------------------------------------------------------- shared helpers

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** One JSON request over a kept-alive connection (lighter than fetch while loading many objects). */
function call(method, url, body, extra = {}) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: { ...headers, ...extra, ...(payload ? { 'content-length': Buffer.byteLength(payload) } : {}) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function post(url, body, extra) {
  const res = await call('POST', url, body, extra);
  if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${res.text.slice(0, 500)}`);
  return res.json();
}

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime (14) + stime (15)
}

/**
 * The local store when it is what MONGODB_URL names (found by its marker in /proc): its pid, for its CPU per request,
 * and a client for its own query timings ({zgwQueryStats}). Undefined for another MongoDB.
 */
const STORE = { pid: undefined, db: undefined };
async function findStore(mongo) {
  const stats = await mongo.db('zgw_bench_stats').command({ zgwQueryStats: 1 }).catch(() => undefined);
  if (!stats) return;
  STORE.db = mongo.db('zgw_bench_stats');
  STORE.pid = pidWhere((cmdline) => cmdline.includes('-Dzgw.engine=mongo@') && cmdline.includes(`--port\0${new URL(MONGODB_URL).port || 27017}\0`));
}

/** A process's command line (its arguments separated by NUL), or '' for one that ended meanwhile. */
function cmdlineOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** The first running process whose command line passes `test`, or undefined. */
function pidWhere(test) {
  const { readdirSync } = require('node:fs');
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).find((p) => test(cmdlineOf(p)));
}

/**
 * One autocannon run. `pid` is the API process whose CPU time is divided over the requests; `settle` runs after the
 * load and before the CPU is read (creates wait there for the relay to publish their events). With the local store,
 * its CPU per request and its own time per query (p99 over the run) are reported beside the API's.
 */
async function measure(title, connections, { pid, settle, ...opts }) {
  if (!title.includes(ONLY)) return undefined;
  const cpuBefore = cpuSeconds(pid);
  const storeCpuBefore = STORE.pid ? cpuSeconds(STORE.pid) : 0;
  if (STORE.db) await STORE.db.command({ zgwQueryStats: 1, reset: true });
  const r = await new Promise((resolve, reject) => {
    autocannon({ duration: SECONDS, connections, headers, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
  const extra = settle ? await settle() : {};
  const cpu = cpuSeconds(pid) - cpuBefore;
  const storeCpu = STORE.pid ? cpuSeconds(STORE.pid) - storeCpuBefore : undefined;
  const store = STORE.db ? await STORE.db.command({ zgwQueryStats: 1 }) : undefined;
  const total = r.requests.total || r['2xx'] + r.non2xx;
  const perRequest = (seconds) => (total && seconds !== undefined ? Number(((seconds * 1000) / total).toFixed(2)) : null);
  const row = {
    title, connections, requestsPerSecond: Math.round(r.requests.average), p50ms: r.latency.p50, p99ms: r.latency.p99,
    cpuMsPerRequest: perRequest(cpu), storeCpuMsPerRequest: perRequest(storeCpu),
    ...(store ? { storeQueries: store.queries, storeQueryP99ms: store.p99Micros / 1000, storeQueriesScanned: store.scanned } : {}),
    non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts,
    total, '2xx': r['2xx'], seconds: Number((r.duration ?? SECONDS).toFixed(1)), ...extra,
  };
  // A run of a fixed number of requests reports its rate over its own duration.
  if (opts.amount) row.requestsPerSecond = Number((total / row.seconds).toFixed(1));
  const storeText = store ? `; store ${row.storeCpuMsPerRequest} ms CPU/req, query p99 ${row.storeQueryP99ms} ms${store.scanned ? `, ${store.scanned} scans` : ''}` : '';
  console.log(`  ${title} @${connections}: ${row.requestsPerSecond} req/s, p50 ${row.p50ms} ms, p99 ${row.p99ms} ms, ${row.cpuMsPerRequest} ms CPU/req${storeText}${row.non2xx ? `, ${row.non2xx} non-2xx` : ''}`);
  return row;
}

function startApi(port, db, env = {}, dir = root) {
  const base = `http://127.0.0.1:${port}`;
  // as npm start runs the API (scripts/node-args.js)
  const proc = spawn(process.execPath, [...NODE_ARGS.api, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), 'services/api/dist/main.js'], {
    cwd: dir, stdio: ['ignore', 'inherit', 'inherit'], // warnings and errors only (LOG_LEVEL)
    env: { ...process.env, PORT: String(port), PUBLIC_BASE_URL: base, MONGODB_DB: db, LOG_LEVEL: 'warn', ZGW_CLIENTS: 'bench:bench-secret:all', ...env },
  });
  return { base, proc, pid: proc.pid };
}

async function up(base) {
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${base}/health`)).ok) return; } catch { /* not up yet */ }
    if (i > 60) throw new Error(`API at ${base} did not come up`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Stops an API and waits for it to exit (the relay flushes and disconnects first). */
function stopApi(api) {
  if (api.proc.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    api.proc.once('exit', resolve);
    api.proc.kill('SIGTERM');
  });
}

/**
 * Waits until a process is idle (under 5% of a core over two seconds, at most a minute): what a load leaves behind (the
 * relay, the read trail's spool, maintained counts, a worker's backlog) must not run during a measurement.
 */
async function quiet(pid) {
  for (let i = 0; i < 30; i++) {
    const before = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 2000));
    if (cpuSeconds(pid) - before < 0.1) return;
  }
}

/** Reads every path once (16 at a time), e.g. so the read cache holds them all: the steady state of a running API. */
async function warm(base, paths, extra = {}) {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < paths.length) await call('GET', `${base}${paths[next++]}`, undefined, extra);
  }));
}

const randomOf = (paths, extra = {}) => [{
  method: 'GET',
  setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...extra }, path: paths[Math.floor(Math.random() * paths.length)] }),
}];

const pathOf = (url) => new URL(url).pathname;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------- catalogi

const zaaktype = (catalogus, i) => ({
  identificatie: `ZT-${i}`, omschrijving: `Zaaktype ${i}`, vertrouwelijkheidaanduiding: 'openbaar', doel: 'bench', aanleiding: 'bench',
  indicatieInternOfExtern: 'extern', handelingInitiator: 'indienen', onderwerp: 'bench', handelingBehandelaar: 'behandelen',
  doorlooptijd: 'P10D', opschortingEnAanhoudingMogelijk: false, verlengingMogelijk: false, publicatieIndicatie: false,
  productenOfDiensten: [], referentieproces: { naam: 'bench' }, catalogus, besluittypen: [], deelzaaktypen: [],
  gerelateerdeZaaktypen: [], beginGeldigheid: '2024-01-01', versiedatum: '2024-01-01', verantwoordelijke: 'bench', trefwoorden: [`t${i % 10}`],
});

/**
 * 10,000 zaaktypen; reads go to an API with its read cache warm (a detail GET picks a random zaaktype each time)
 * and, for comparison, to a second instance on the same data with the cache off (CACHE_TTL_MS=0).
 */
async function catalogiSuite(db) {
  // The measured instance keeps entries for the whole run, so reads show the steady state of a warm cache (with the
  // default CACHE_TTL_MS of 10 s, an entry is reloaded at most every 10 s).
  const api = startApi(PORT, db, { CACHE_TTL_MS: '3600000' });
  const uncached = startApi(PORT + 1, db, { CACHE_TTL_MS: '0' });
  const ZTC = `${api.base}/catalogi/api/v1`;
  const ZTC_UNCACHED = `${uncached.base}/catalogi/api/v1`;
  try {
    await up(api.base);
    await up(uncached.base);
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
    const loadSeconds = (Date.now() - started) / 1000;
    console.log(`catalogi: loaded ${ids.length} zaaktypen over ${catalogussen.length} catalogussen in ${loadSeconds.toFixed(1)} s (${Math.round(ids.length / loadSeconds)}/s at 16 clients)`);
    const deepPage = Math.ceil(ZAAKTYPEN / 100);
    const paths = ids.map(pathOf);
    const results = [];
    let n = ZAAKTYPEN;
    for (const connections of [1, 16]) {
      const cached = { pid: api.pid };
      const uncachedPid = { pid: uncached.pid };
      results.push(await measure('GET /zaaktypen (page 1)', connections, { ...cached, url: `${ZTC}/zaaktypen?status=alles` }));
      results.push(await measure(`GET /zaaktypen (page ${deepPage})`, connections, { ...cached, url: `${ZTC}/zaaktypen?status=alles&page=${deepPage}` }));
      if ('GET /zaaktypen/{uuid}'.includes(ONLY)) await warm(api.base, paths);
      results.push(await measure('GET /zaaktypen/{uuid}', connections, { ...cached, url: api.base, requests: randomOf(paths) }));
      results.push(await measure('GET /zaaktypen (page 1), no cache', connections, { ...uncachedPid, url: `${ZTC_UNCACHED}/zaaktypen?status=alles` }));
      results.push(await measure(`GET /zaaktypen (page ${deepPage}), no cache`, connections, { ...uncachedPid, url: `${ZTC_UNCACHED}/zaaktypen?status=alles&page=${deepPage}` }));
      results.push(await measure('GET /zaaktypen/{uuid}, no cache', connections, { ...uncachedPid, url: uncached.base, requests: randomOf(paths) }));
      results.push(await measure('POST /zaaktypen', connections, {
        ...cached,
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
    return { zaaktypen: ZAAKTYPEN, catalogussen: CATALOGUSSEN, seconds: SECONDS, loadSeconds, results: results.filter(Boolean) };
  } finally {
    await Promise.all([stopApi(api), stopApi(uncached)]);
  }
}

// ---------------------------------------------------------------- zaken

/** A valid BSN (elfproef) from a number below 10^8. */
function bsn(n) {
  const digits = String(n).padStart(8, '0').split('').map(Number);
  for (let last = 0; last < 10; last++) {
    const sum = digits.reduce((s, d, i) => s + d * (9 - i), 0) - last;
    if (sum % 11 === 0 && !(digits.every((d) => d === 0) && last === 0)) return digits.join('') + last;
  }
  return undefined;
}

/** BSNs for the rollen: about five zaken per BSN, so `_zoek` by BSN finds a handful. */
function bsnPool(size) {
  const pool = [];
  for (let n = 10000000; pool.length < size; n += 7919) {
    const b = bsn(n % 100000000);
    if (b) pool.push(b);
  }
  return pool;
}

/** Start dates spread over 2024 (a zaak a day, round and round), so a startdatum range selects a part of the zaken. */
const startdatum = (i) => new Date(Date.UTC(2024, 0, 1 + (i % 366))).toISOString().slice(0, 10);
const zaakBody = (zaaktypeUrl, i) => ({
  bronorganisatie: '002220647', verantwoordelijkeOrganisatie: '002220647', zaaktype: zaaktypeUrl, startdatum: startdatum(i),
  omschrijving: `Melding ${i}`, toelichting: 'bench',
});

/**
 * A catalogus with a published zaaktype that has a statustype and a roltype, whose zaken carry documents of a published
 * informatieobjecttype and besluiten of a published besluittype.
 */
/** The types the loaded zaken use, in a catalogus of their own; `as`: the headers of another client (a tenant's). */
async function zaaktypeForZaken(ztc, as = {}) {
  const catalogus = (await post(`${ztc}/catalogussen`, { domein: 'ZBNCH', rsin: '002220647', contactpersoonBeheerNaam: 'Bench' }, as)).url;
  const iot = await post(`${ztc}/informatieobjecttypen`, {
    catalogus, omschrijving: 'bijlage', vertrouwelijkheidaanduiding: 'openbaar', beginGeldigheid: '2020-01-01', informatieobjectcategorie: 'bijlage',
  }, as);
  const bt = await post(`${ztc}/besluittypen`, { catalogus, omschrijving: 'besluit', publicatieIndicatie: false, informatieobjecttypen: [], beginGeldigheid: '2020-01-01' }, as);
  for (const url of [iot.url, bt.url]) {
    const published = await call('POST', `${url}/publish`, undefined, as);
    if (published.status !== 200) throw new Error(`publish ${url}: ${published.status} ${published.text.slice(0, 500)}`);
  }
  const zt = await post(`${ztc}/zaaktypen`, {
    ...zaaktype(catalogus, 0), identificatie: 'ZT-ZAKEN', omschrijving: 'Melding openbare ruimte', besluittypen: ['besluit'],
  }, as);
  await post(`${ztc}/zaaktype-informatieobjecttypen`, { zaaktype: zt.url, informatieobjecttype: iot.url, volgnummer: 1, richting: 'inkomend' }, as);
  await post(`${ztc}/statustypen`, { zaaktype: zt.url, omschrijving: 'Ontvangen', volgnummer: 1 }, as);
  await post(`${ztc}/statustypen`, { zaaktype: zt.url, omschrijving: 'Afgehandeld', volgnummer: 2 }, as);
  const roltype = await post(`${ztc}/roltypen`, { zaaktype: zt.url, omschrijving: 'Melder', omschrijvingGeneriek: 'initiator' }, as);
  const res = await call('POST', `${zt.url}/publish`, undefined, as);
  if (res.status !== 200) throw new Error(`publish ${zt.url}: ${res.status} ${res.text.slice(0, 500)}`);
  return { zaaktype: zt.url, roltype: roltype.url, informatieobjecttype: iot.url, besluittype: bt.url };
}

/**
 * Loads `count` zaken at 16 clients: each with a rol (natuurlijk_persoon, BSN from the pool), a document linked to it
 * and a besluit on it, every 10th with a zaakobject. Shows progress every 5 s (count, rate, ETA, events waiting in the
 * outbox).
 */
async function loadZaken(zrc, types, pool, count, outboxWaiting, as = {}, quiet = false) {
  const drc = zrc.replace('/zaken/api/v1', '/documenten/api/v1');
  const brc = zrc.replace('/zaken/api/v1', '/besluiten/api/v1');
  const paths = [];
  const withParts = [];
  let next = 0;
  let done = 0;
  let objects = 0;
  const started = Date.now();
  let last = { at: started, done: 0 };
  const progress = setInterval(async () => {
    if (quiet) return;
    const now = Date.now();
    const rate = (done - last.done) / ((now - last.at) / 1000);
    const overall = done / ((now - started) / 1000);
    last = { at: now, done };
    const waiting = await outboxWaiting().catch(() => '?');
    console.log(`  zaken ${done}/${count} (${Math.round(rate)}/s now, ${Math.round(overall)}/s overall, ETA ${seconds(((count - done) / Math.max(overall, 1)) * 1000)}); outbox: ${waiting} documents with events waiting`);
  }, 5000);
  try {
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < count) {
        const i = next++;
        const zaak = await post(`${zrc}/zaken`, zaakBody(types.zaaktype, i), { ...CRS, ...as });
        await post(`${zrc}/rollen`, {
          zaak: zaak.url, roltype: types.roltype, betrokkeneType: 'natuurlijk_persoon', roltoelichting: 'melder',
          betrokkeneIdentificatie: { inpBsn: pool[i % pool.length], geslachtsnaam: 'Jansen', voornamen: 'Jan' },
        }, { ...CRS, ...as });
        const document = await post(`${drc}/enkelvoudiginformatieobjecten`, {
          bronorganisatie: '002220647', creatiedatum: startdatum(i), titel: `Melding ${i}`, auteur: 'Melder', taal: 'dut',
          inhoud: Buffer.from(`melding ${i}`).toString('base64'), bestandsnaam: `melding-${i}.txt`, informatieobjecttype: types.informatieobjecttype,
        }, as);
        await post(`${zrc}/zaakinformatieobjecten`, { zaak: zaak.url, informatieobject: document.url }, { ...CRS, ...as });
        await post(`${brc}/besluiten`, {
          verantwoordelijkeOrganisatie: '002220647', besluittype: types.besluittype, zaak: zaak.url, datum: startdatum(i), ingangsdatum: startdatum(i),
        }, as);
        if (i % 10 === 0) {
          await post(`${zrc}/zaakobjecten`, { zaak: zaak.url, objectType: 'pand', objectIdentificatie: { identificatie: `0599100000${String(i).padStart(6, '0')}` } }, { ...CRS, ...as });
          objects++;
          withParts.push(pathOf(zaak.url));
        }
        paths.push(pathOf(zaak.url));
        done++;
      }
    }));
  } finally {
    clearInterval(progress);
  }
  return { paths, withParts, objects, loadSeconds: (Date.now() - started) / 1000 };
}

/** Waits until the relay has published every waiting event; returns how long that took. */
async function drained(outboxWaiting, limitMs = 600_000) {
  const started = Date.now();
  for (let last = 0; ; ) {
    const waiting = await outboxWaiting();
    if (waiting === 0) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`the outbox still holds ${waiting} documents with events after ${seconds(limitMs)}`);
    if (Date.now() - last > 5000) {
      if (last) console.log(`  outbox: ${waiting} documents with events waiting`);
      last = Date.now();
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function zakenSuite(db, mongo) {
  const prefix = `bench${Date.now()}.`;
  const api = startApi(PORT, db, { KAFKA_TOPIC_PREFIX: prefix });
  const ZTC = `${api.base}/catalogi/api/v1`;
  const ZRC = `${api.base}/zaken/api/v1`;
  const database = mongo.db(db);
  // Every document with unpublished events has a pointer; the relay removes it once they are published.
  const outboxWaiting = () => database.collection('outbox').countDocuments({});
  try {
    await up(api.base);
    const types = await zaaktypeForZaken(ZTC);
    const pool = bsnPool(Math.max(1, Math.round(ZAKEN / 5)));
    console.log(`zaken: loading ${ZAKEN} zaken through the API at 16 clients (each with a rol, a document and a besluit, every 10th with a zaakobject)`);
    const loaded = await loadZaken(ZRC, types, pool, ZAKEN, outboxWaiting);
    const loadRequests = ZAKEN * 5 + loaded.objects;
    console.log(`zaken: loaded ${ZAKEN} zaken with their rollen, documents and besluiten, and ${loaded.objects} zaakobjecten in ${loaded.loadSeconds.toFixed(1)} s `
      + `(${Math.round(ZAKEN / loaded.loadSeconds)} zaken/s, ${Math.round(loadRequests / loaded.loadSeconds)} requests/s at 16 clients)`);
    const loadLagMs = await drained(outboxWaiting);
    console.log(`zaken: the relay published the load's last events ${seconds(loadLagMs)} after the load ended`);

    // Sanity: _zoek by BSN finds a handful; expand shows the parts.
    const zoek = await call('POST', `${ZRC}/zaken/_zoek`, { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: pool[0] }, CRS);
    const found = zoek.status === 200 ? zoek.json().count : `status ${zoek.status}`;
    const expanded = await call('GET', `${api.base}${loaded.withParts[0]}?expand=rollen,zaakobjecten`, undefined, CRS);
    const parts = expanded.status === 200 ? expanded.json()._expand : {};
    console.log(`zaken: _zoek by one BSN finds ${found} zaken; expand=rollen,zaakobjecten shows ${parts.rollen?.length ?? 0} rol(len) and ${parts.zaakobjecten?.length ?? 0} zaakobject(en)`);
    if (!(Number(found) > 0) || !parts.rollen?.length || !parts.zaakobjecten?.length) throw new Error('the loaded zaken are not found by _zoek or expand');

    const pid = api.pid;
    const results = [];
    let n = ZAKEN;
    let created = 0;
    // JIT and connection warm-up of the read paths (not reported).
    await new Promise((resolve, reject) => autocannon({ duration: 3, connections: 16, headers: zrcHeaders, url: api.base, requests: randomOf(loaded.paths) }, (e) => (e ? reject(e) : resolve())));
    for (const connections of [1, 16]) {
      const create = await measure('POST /zaken (create, event published)', connections, {
        pid,
        url: `${ZRC}/zaken`,
        requests: [{
          method: 'POST',
          setupRequest: (req) => {
            req.headers = { ...zrcHeaders };
            req.body = JSON.stringify(zaakBody(types.zaaktype, n++));
            return req;
          },
        }],
        // The CPU of a create includes publishing its event: measured until the outbox is empty again.
        settle: async () => {
          const waiting = await outboxWaiting();
          const lagMs = await drained(outboxWaiting);
          return { outboxWaitingAtEnd: waiting, relayLagMs: lagMs };
        },
      });
      if (create) created += create['2xx'];
      results.push(create);
      results.push(await measure('GET /zaken/{uuid}', connections, { pid, url: api.base, headers: zrcHeaders, requests: randomOf(loaded.paths) }));
      results.push(await measure('GET /zaken/{uuid}?expand=rollen,zaakobjecten', connections, {
        pid, url: api.base, headers: zrcHeaders, requests: randomOf(loaded.withParts.map((p) => `${p}?expand=rollen,zaakobjecten`)),
      }));
      results.push(await measure('GET /zaken (page 1)', connections, { pid, url: `${ZRC}/zaken`, headers: zrcHeaders }));
      // _zoek by BSN: plain, with expand=rollen, and (Zaken 1.7) into the zaak's documents by expand and by fields.
      const V17 = { ...zrcHeaders, 'api-version': '1.7' };
      const zoeken = [
        ['POST /zaken/_zoek (BSN)', zrcHeaders, {}],
        ['POST /zaken/_zoek (BSN, expand=rollen)', zrcHeaders, { expand: 'rollen' }],
        ['POST /zaken/_zoek (BSN, 1.7, expand=zaakinformatieobjecten.informatieobject,rollen)', V17, { expand: 'zaakinformatieobjecten.informatieobject,rollen' }],
        ['POST /zaken/_zoek (BSN, 1.7, the same through fields)', V17, { fields: ['*', { rollen: ['*'] }, { zaakinformatieobjecten: ['*', { informatieobject: ['*'] }] }] }],
      ];
      for (const [title, zoekHeaders, extra] of zoeken) {
        results.push(await measure(title, connections, {
          pid,
          url: `${ZRC}/zaken/_zoek`,
          requests: [{
            method: 'POST',
            setupRequest: (req) => {
              req.headers = { ...zoekHeaders };
              req.body = JSON.stringify({ rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: pool[Math.floor(Math.random() * pool.length)], ...extra });
              return req;
            },
          }],
        }));
      }
      // A quarter of the year's start dates: page 1 and the last page (reached once by walking, then by its key).
      const range = `zaaktype=${encodeURIComponent(types.zaaktype)}&startdatum__gte=2024-04-01&startdatum__lte=2024-06-30`;
      const first = await call('GET', `${ZRC}/zaken?${range}`, undefined, zrcHeaders);
      const lastPage = Math.max(1, Math.ceil(first.json().count / 100));
      if (connections === 1) console.log(`zaken: the startdatum range holds ${first.json().count} zaken, ${lastPage} pages`);
      results.push(await measure('GET /zaken?zaaktype&startdatum range (page 1)', connections, { pid, url: `${ZRC}/zaken?${range}`, headers: zrcHeaders }));
      results.push(await measure('GET /zaken?zaaktype&startdatum range (last page)', connections, { pid, url: `${ZRC}/zaken?${range}&page=${lastPage}`, headers: zrcHeaders }));
    }

    // The same detail reads on a second instance that records no reads (AUDIT_READS=off): what recording costs.
    const unaudited = startApi(PORT + 1, db, { KAFKA_TOPIC_PREFIX: prefix, AUDIT_READS: 'off' });
    try {
      await up(unaudited.base);
      await new Promise((resolve, reject) => autocannon({ duration: 3, connections: 16, headers: zrcHeaders, url: unaudited.base, requests: randomOf(loaded.paths) }, (e) => (e ? reject(e) : resolve())));
      for (const connections of [1, 16]) {
        results.push(await measure('GET /zaken/{uuid} (reads not recorded)', connections, { pid: unaudited.pid, url: unaudited.base, headers: zrcHeaders, requests: randomOf(loaded.paths) }));
      }
    } finally {
      await stopApi(unaudited);
    }

    // Every event of every write reached Kafka: no document keeps events, and the zaken topic holds one message per
    // zaak, rol, zaakinformatieobject, zaakbesluit and zaakobject created (documents and besluiten have their own topics).
    const finalLagMs = await drained(outboxWaiting);
    const pendingDocs = (await Promise.all(['zaken', 'rollen', 'zaakobjecten', 'zaakinformatieobjecten'].map((c) => database.collection(c).countDocuments({ _pending: true })))).reduce((a, b) => a + b, 0);
    const kafka = createKafka(KAFKA_BROKERS, 'zgw-bench');
    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(`${prefix}zaken`);
    await admin.disconnect();
    const published = offsets.reduce((s, o) => s + Number(o.high) - Number(o.low), 0);
    // (of the load's five writes per zaak, the document and the besluit notify elsewhere; the besluit adds a zaakbesluit)
    const expected = ZAKEN * 4 + loaded.objects + created;
    const events = { expected, published, outboxPointers: await outboxWaiting(), documentsWithEvents: pendingDocs, finalLagMs };
    console.log(`zaken: ${published} of ${expected} zaken events on Kafka topic ${prefix}zaken; ${events.outboxPointers} outbox pointers and ${pendingDocs} documents with events left`);
    if (published < expected || pendingDocs || events.outboxPointers) throw new Error('not every event was published');

    const detail16 = results.find((r) => r && r.title === 'GET /zaken/{uuid}' && r.connections === 16);
    const create16 = results.find((r) => r && r.title.startsWith('POST /zaken (create') && r.connections === 16);
    const targets = {
      detailP99Under25ms: detail16 ? detail16.p99ms < 25 : null,
      detailAtLeast1500PerSecond: detail16 ? detail16.requestsPerSecond >= 1500 : null,
      createsAtLeast500PerSecond: create16 ? create16.requestsPerSecond >= 500 : null,
    };
    return {
      zaken: ZAKEN, rollen: ZAKEN, zaakobjecten: loaded.objects, bsns: pool.length, seconds: SECONDS, loadSeconds: loaded.loadSeconds,
      loadLagMs, results: results.filter(Boolean), events, targets,
    };
  } finally {
    await stopApi(api);
  }
}

// ---------------------------------------------------------------- main

function table(suites) {
  console.log('\n| suite | operation | clients | req/s | p50 ms | p99 ms | API CPU ms/req | store CPU ms/req | store query p99 ms | non-2xx |\n|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, s] of Object.entries(suites)) {
    for (const r of s.results) console.log(`| ${name} | ${r.title} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50ms} | ${r.p99ms} | ${r.cpuMsPerRequest} | ${r.storeCpuMsPerRequest ?? ''} | ${r.storeQueryP99ms ?? ''} | ${r.non2xx} |`);
  }
}

async function main() {
  execFileSync('npx', ['tsc', '-b'], { cwd: root, stdio: 'inherit' });
  // Engines named by MONGODB_URL / KAFKA_BROKERS are used as they are; the others are started (the defaults).
  const engines = [!process.env.MONGODB_URL && 'mongo', !process.env.KAFKA_BROKERS && 'kafka'].filter(Boolean);
  if (engines.length) execFileSync('bash', ['scripts/engines.sh', 'start', ...engines], { cwd: root, stdio: 'inherit' });
  const mongo = await MongoClient.connect(MONGODB_URL);
  await findStore(mongo);
  const stamp = Date.now();
  const suites = {};
  const dbs = [];
  try {
    if (runs('catalogi')) {
      dbs.push(`zgw_bench_${stamp}`);
      suites.catalogi = { at: new Date().toISOString(), ...(await catalogiSuite(dbs.at(-1))) };
    }
    if (runs('zaken')) {
      dbs.push(`zgw_bench_zaken_${stamp}`);
      suites.zaken = { at: new Date().toISOString(), ...(await zakenSuite(dbs.at(-1), mongo)) };
    }
    const helpers = {
      call, post, measure, startApi, up, stopApi, drained, randomOf, pathOf, seconds, zaaktype, headers, PORT, ONLY, SECONDS, cpuSeconds,
      bsnPool, zaaktypeForZaken, loadZaken, zaakBody, zrcHeaders, CRS, STORE, quiet, cmdlineOf, pidWhere,
    };
    if (runs('documents')) {
      dbs.push(`zgw_bench_documents_${stamp}`);
      suites.documents = { at: new Date().toISOString(), ...(await documentsSuite(helpers, dbs.at(-1), mongo, { documents: DOCUMENTS, viaApi: VIA_API })) };
    }
    if (runs('notifier')) {
      dbs.push(`zgw_bench_notifier_${stamp}`);
      suites.notifier = { at: new Date().toISOString(), ...(await notifierSuite(helpers, dbs.at(-1), { events: num('events', 10000), receivers: num('receivers', 100), slowMs: num('slow-ms', 5000), ticks: CLK_TCK })) };
    }
    if (runs('transfer')) {
      dbs.push(`zgw_bench_transfer_${stamp}`, `zgw_bench_transfer_${stamp}_b`);
      suites.transfer = { at: new Date().toISOString(), ...(await transferSuite(helpers, dbs.at(-2), { transfers: num('transfers', 40), concurrent: num('concurrent', 8) })) };
    }
    if (runs('pii')) {
      dbs.push(`zgw_bench_pii_${stamp}_sealed`, `zgw_bench_pii_${stamp}_plain`);
      suites.pii = { at: new Date().toISOString(), ...(await piiSuite(helpers, `zgw_bench_pii_${stamp}`, mongo, { zaken: num('zaken', 20000), plainRef: option('plain-ref') ?? '9d0f855^' })) };
    }
    if (runs('tenants')) {
      dbs.push(`zgw_bench_tenants_${stamp}`);
      suites.tenants = { at: new Date().toISOString(), ...(await tenantsSuite(helpers, dbs.at(-1), mongo, { tenants: num('tenants', 200), perTenant: num('per-tenant', 500) })) };
    }
    if (runs('import')) {
      const sourceDb = option('source-db');
      dbs.push(`zgw_bench_import_${stamp}`, ...(sourceDb ? [] : [`zgw_bench_import_${stamp}_bron`]));
      suites.import = { at: new Date().toISOString(), ...(await importSuite(helpers, `zgw_bench_import_${stamp}`, { zaken: num('zaken', 20000), sourceDb })) };
    }
    if (runs('import-openzaak')) {
      dbs.push(`zgw_bench_ozimport_${stamp}`);
      suites['import-openzaak'] = {
        at: new Date().toISOString(),
        ...(await importOpenZaakSuite(helpers, dbs.at(-1), { orm: num('orm', 5000), rijk: num('rijk', 200), gelijktijdig: option('gelijktijdig') && num('gelijktijdig'), ticks: CLK_TCK })),
      };
    }
    if (runs('platform')) {
      dbs.push(`zgw_bench_platform_${stamp}`);
      suites.platform = { at: new Date().toISOString(), ...(await platformSuite(helpers, dbs.at(-1), mongo, { zaken: num('zaken', 20000) })) };
    }
    if (runs('documents-large')) {
      dbs.push(`zgw_bench_documents_large_${stamp}`);
      const store = option('store') ?? 'gridfs';
      let env = {};
      if (store === 's3' && !process.env.S3_ENDPOINT) {
        execFileSync('bash', ['scripts/engines.sh', 'start', 's3'], { cwd: root, stdio: 'inherit' });
        const out = execFileSync('bash', ['scripts/engines.sh', 'env', 's3'], { cwd: root, encoding: 'utf8' });
        env = Object.fromEntries([...out.matchAll(/export (\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      }
      suites['documents-large'] = {
        at: new Date().toISOString(),
        ...(await largeSuite(helpers, dbs.at(-1), { bytes: LARGE_MIB * 1024 * 1024, parallel: num('parallel', 1), store, env })),
      };
    }
    table(suites);
    const file = path.join(root, 'reports', 'bench.json');
    let previous = {};
    try { previous = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}; } catch { /* unreadable: replaced */ }
    const kept = Object.fromEntries(SUITES.filter((k) => previous[k]?.results).map((k) => [k, previous[k]]));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ cpuTicksPerSecond: CLK_TCK, ...kept, ...suites }, null, 2));
    const large = suites['documents-large'];
    if (large) {
      console.log(`\ndocuments-large: ${large.parallel} x ${large.bytes / 1048576} MiB on ${large.store}; API RSS ${large.baselineRssMb} MB before; upload ${large.upload.seconds.toFixed(1)} s, `
        + `max RSS +${large.upload.rssGrowthMb} MB; download ${large.download.seconds.toFixed(1)} s, max RSS +${large.download.rssGrowthMb} MB`);
    }
    if (suites.transfer) {
      const r = suites.transfer.routes;
      console.log(`\ntransfer at ${suites.transfer.concurrent} concurrent: internal ${r.intern.transfersPerMinute}/minute (target 60: ${suites.transfer.target.internalAtLeast60PerMinute ? 'met' : 'NOT met'}), external ${r.extern.transfersPerMinute}/minute`);
    }
    if (suites.import) {
      const i = suites.import;
      console.log(`\nimport of ${i.zaken} zaken: ${i.zakenPerSecond} zaken/s (target 100: ${i.target.atLeast100ZakenPerSecond ? 'met' : 'NOT met'}); RSS growth API +${i.rssMb.apiGrowth} MB, worker +${i.rssMb.workerGrowth} MB (target <= 300: ${i.target.rssGrowthAtMost300Mb ? 'met' : 'NOT met'})`);
    }
    if (suites.platform) {
      const t = suites.platform.targets;
      console.log(`\nplatform (npm start, ${suites.platform.zaken} zaken) at 16 clients: ${Object.entries(t).map(([op, x]) => `${op} ${x.requestsPerSecond ?? '-'} req/s (>= ${x.atLeast}: ${x.met === null ? 'not measured' : x.met ? 'met' : 'NOT met'})`).join('; ')}`);
    }
    if (suites.zaken) {
      const t = suites.zaken.targets;
      const mark = (ok) => (ok === null ? 'not measured' : ok ? 'met' : 'NOT met');
      console.log(`\nzaken targets at 16 clients: detail p99 < 25 ms ${mark(t.detailP99Under25ms)}; detail >= 1,500 req/s ${mark(t.detailAtLeast1500PerSecond)}; creates >= 500/s ${mark(t.createsAtLeast500PerSecond)}`);
    }
  } finally {
    if (!KEEP) for (const db of dbs) await mongo.db(db).dropDatabase().catch(() => undefined);
    await mongo.close();
    agent.destroy();
  }
}

main().catch((err) => {
  console.error('bench failed:', err.message);
  process.exit(1);
});
