// The platform suite of scripts/bench.js: the whole platform as `npm start` runs it (scripts/start.js: the API, the
// notifier, the audit worker keeping the read trail, the transfer worker, and the engines), --zaken (20,000) zaken
// loaded through the API as the zaken suite loads them, then at 16 clients: GET zaak, list page 1, the zaaktype +
// startdatum range page 1, `_zoek` by BSN with expand=rollen, and creates. Every process's CPU per request is given
// (the API, each worker, the store, Kafka), counted until the workers have caught up with what the operation left them
// (the read trail, the notifications). Targets: GET zaak >= 2,000 req/s, and at least 70% of the zaken suite's: list
// page 1 >= 350, the range page 1 >= 280, `_zoek` by BSN with expand=rollen >= 630.
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const autocannon = require('autocannon');

const root = path.join(__dirname, '..', '..');
const WORKERS = ['notifier', 'audit', 'transfer'];
const TARGETS = {
  'GET /zaken/{uuid}': 2000,
  'GET /zaken (page 1)': 350,
  'GET /zaken?zaaktype&startdatum range (page 1)': 280,
  'POST /zaken/_zoek (BSN, expand=rollen)': 630,
};

/** The processes to count: the platform's services (children of the supervisor) and the engines, by name. */
function processes(h, supervisor) {
  const children = readFileSync(`/proc/${supervisor}/task/${supervisor}/children`, 'utf8').trim().split(/\s+/).map(Number);
  const out = {};
  for (const name of ['api', ...WORKERS]) {
    const pid = children.find((p) => h.cmdlineOf(p).includes(path.join('services', name, 'dist', 'main.js')));
    if (!pid) throw new Error(`platform: no ${name} process under the supervisor (pid ${supervisor})`);
    out[name] = pid;
  }
  return { ...out, ...engines(h) };
}

/** The engines' processes that run here (the local store, Kafka, Temporal), by name. */
function engines(h) {
  const pids = {
    store: h.STORE.pid,
    kafka: h.pidWhere((cmdline) => cmdline.includes('-Dzgw.engine=kafka@')),
    temporal: h.pidWhere((cmdline) => /temporal\0server\0start-dev/.test(cmdline)),
  };
  return Object.fromEntries(Object.entries(pids).filter(([, pid]) => pid));
}

function startPlatform(h, db, prefix) {
  const base = `http://127.0.0.1:${h.PORT}`;
  const proc = spawn(process.execPath, [path.join(root, 'scripts', 'start.js')], {
    cwd: root, stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, PORT: String(h.PORT), PUBLIC_BASE_URL: base, MONGODB_DB: db, KAFKA_TOPIC_PREFIX: prefix, LOG_LEVEL: 'warn', ZGW_CLIENTS: 'bench:bench-secret:all' },
  });
  return { base, proc, pid: proc.pid };
}

async function platformSuite(h, db, mongo, { zaken }) {
  const platform = startPlatform(h, db, `benchplatform${Date.now()}.`);
  const zrc = `${platform.base}/zaken/api/v1`;
  const outbox = () => mongo.db(db).collection('outbox').countDocuments({});
  try {
    await h.up(platform.base);
    const pids = processes(h, platform.pid);
    console.log(`platform: running as npm start runs it (${Object.entries(pids).map(([n, p]) => `${n} ${p}`).join(', ')})`);
    const types = await h.zaaktypeForZaken(`${platform.base}/catalogi/api/v1`);
    const pool = h.bsnPool(Math.max(1, Math.round(zaken / 5)));
    console.log(`platform: loading ${zaken} zaken through the API at 16 clients`);
    const loaded = await h.loadZaken(zrc, types, pool, zaken, outbox);
    console.log(`platform: loaded in ${loaded.loadSeconds.toFixed(1)} s (${Math.round(zaken / loaded.loadSeconds)} zaken/s)`);
    // what the load left the relay and the workers is done before anything is measured
    const caughtUp = async () => {
      await h.drained(outbox);
      for (const name of ['api', ...WORKERS]) await h.quiet(pids[name]);
    };
    await caughtUp();

    const range = `zaaktype=${encodeURIComponent(types.zaaktype)}&startdatum__gte=2024-04-01&startdatum__lte=2024-06-30`;
    let n = zaken;
    const operations = [
      ['GET /zaken/{uuid}', { url: platform.base, headers: h.zrcHeaders, requests: h.randomOf(loaded.paths) }],
      ['GET /zaken (page 1)', { url: `${zrc}/zaken`, headers: h.zrcHeaders }],
      ['GET /zaken?zaaktype&startdatum range (page 1)', { url: `${zrc}/zaken?${range}`, headers: h.zrcHeaders }],
      ['POST /zaken/_zoek (BSN, expand=rollen)', { url: `${zrc}/zaken/_zoek`, requests: [{ method: 'POST', setupRequest: (req) => ({
        ...req, headers: { ...h.zrcHeaders }, body: JSON.stringify({ rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: pool[Math.floor(Math.random() * pool.length)], expand: 'rollen' }),
      }) }] }],
      ['POST /zaken (create, event published)', { url: `${zrc}/zaken`, requests: [{ method: 'POST', setupRequest: (req) => ({
        ...req, headers: { ...h.zrcHeaders }, body: JSON.stringify(h.zaakBody(types.zaaktype, n++)),
      }) }] }],
    ];
    // JIT and connection warm-up of the read paths (not reported)
    await new Promise((resolve, reject) => autocannon({ duration: 3, connections: 16, headers: h.zrcHeaders, url: platform.base, requests: h.randomOf(loaded.paths) }, (e) => (e ? reject(e) : resolve())));
    await caughtUp();
    const results = [];
    for (const [title, opts] of operations) {
      const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, h.cpuSeconds(pid)]));
      const row = await h.measure(title, 16, { pid: pids.api, settle: async () => (await caughtUp(), {}), ...opts });
      if (!row) continue;
      row.cpuMsPerRequestByProcess = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, Number((((h.cpuSeconds(pid) - before[name]) * 1000) / row.total).toFixed(3))]));
      row.platformCpuMsPerRequest = Number(Object.values(row.cpuMsPerRequestByProcess).reduce((a, b) => a + b, 0).toFixed(2));
      console.log(`    CPU a request, counted until the workers caught up: ${Object.entries(row.cpuMsPerRequestByProcess).map(([name, ms]) => `${name} ${ms} ms`).join(', ')}; ${row.platformCpuMsPerRequest} ms in all`);
      results.push(row);
    }
    const targets = Object.fromEntries(Object.entries(TARGETS).map(([title, atLeast]) => {
      const row = results.find((r) => r.title === title);
      return [title, { atLeast, requestsPerSecond: row?.requestsPerSecond ?? null, met: row ? row.requestsPerSecond >= atLeast : null }];
    }));
    return { zaken, loadSeconds: loaded.loadSeconds, seconds: h.SECONDS, processes: Object.keys(pids), results, targets };
  } finally {
    // (the supervisor stops its services, then the engines it started)
    await h.stopApi(platform);
  }
}

module.exports = { platformSuite, engines };
