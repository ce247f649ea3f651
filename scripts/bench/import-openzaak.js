// The import-openzaak suite of scripts/bench.js: the registration import from a real Open Zaak 1.21.0
// (../shared/peers/openzaak/openzaak.sh, 127.0.0.1:8300, uWSGI 2 processes x 2 threads; started when it does not run,
// and then stopped at the end). Open Zaak holds --orm (5,000) zaken made by its ORM (scripts/openzaak/orm.py: a rol
// and a status each, no audit trail) and --rijk (200) made through its APIs (scripts/openzaak/fill.js: the check's six,
// the others with two rollen, two statussen, a zaakeigenschap and a document, every fifth with a besluit, each with
// Open Zaak's audit trail). The fill is kept: a later run whose Open Zaak still holds it imports from it as it is.
// The platform runs as npm start runs it, each service its own process (the API, the transfer worker, the notifier,
// the audit worker); `importeren` brings the whole registration in (--gelijktijdig, default the import's own).
// Every second the CPU of each process is sampled from /proc/<pid>/stat: the platform's services, the engines, and
// Open Zaak's uWSGI processes and PostgreSQL. Reported: zaken a second, the source's requests a second and p95 (the
// run's own progress), the wall time of each stage (collection) and of the verification after them, and per process
// the average and the most cores it used. Target: the source is the bottleneck (each of the platform's processes
// below half a core on average while Open Zaak's uWSGI workers are busy; a run at more requests at once, e.g.
// --gelijktijdig 8, then brings no more).
const { execFileSync, spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { NODE_ARGS } = require('../node-args');
const { client } = require('../openzaak/http');
const { fill } = require('../openzaak/fill');
const { OZ_DIR, OPENZAAK_SH, running, ozShell, pointSelectielijst } = require('../openzaak/openzaak');
const { engines } = require('./platform');

const root = path.join(__dirname, '..', '..');
const OZ = (process.env.OZ_URL ?? 'http://127.0.0.1:8300').replace(/\/$/, '');
const OZ_CLIENT = process.env.OZ_CLIENT ?? 'openzaak-bron';
const OZ_SECRET = process.env.OZ_SECRET ?? 'openzaak-bron-secret-0123456789abcdef';
/** What the last fill made (kept beside Open Zaak's data; a fill of scripts/openzaak/check.js makes it stale). */
const FILLED = path.join(OZ_DIR, 'bench-import-openzaak.json');
const WORKERS = ['transfer', 'notifier', 'audit'];
/** The zaken fill.js makes before its `meer`. */
const FILL_ZAKEN = 6;

const uuidOf = (url) => /([0-9a-f-]{36})\/?$/.exec(url)?.[1] ?? url;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds of a process and of the children it has waited for (PostgreSQL's backends come and go), plus its live children's. */
function treeSeconds(h, pid, ticks) {
  const fields = (p) => {
    const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  const f = fields(pid);
  let seconds = (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / ticks; // utime stime cutime cstime
  for (const child of childrenOf(pid)) {
    try {
      seconds += h.cpuSeconds(child);
    } catch {
      // ended meanwhile (its time is in cutime from now on)
    }
  }
  return seconds;
}

function childrenOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Open Zaak's processes: its uWSGI workers (it runs without a master: the first worker forks the second and the HTTP
 * router, the one of a single thread) and PostgreSQL (with its backends).
 */
function openZaakProcesses() {
  const first = Number(fs.readFileSync(path.join(OZ_DIR, 'uwsgi.pid'), 'utf8').trim());
  const threads = (pid) => Number(/Threads:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  const out = {};
  let n = 0;
  for (const pid of [first, ...childrenOf(first)]) out[threads(pid) > 1 ? `openzaak uwsgi worker ${++n}` : 'openzaak uwsgi http router'] = { pid };
  const pg = Number(fs.readFileSync(path.join(OZ_DIR, 'pg', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  out['openzaak postgres'] = { pid: pg, tree: true };
  return out;
}

/**
 * Open Zaak filled as this suite wants it: kept from an earlier run when it still holds that fill, else emptied and
 * filled (its selectielijst pointed at the platform's Referentielijsten API at `base`, which must run).
 */
async function filled(base, { orm, rijk }) {
  const oz = client(OZ_CLIENT, OZ_SECRET);
  const selectielijst = `${base}/referentielijsten/api/v1`;
  const list = await oz.call('GET', `${OZ}/zaken/api/v1/zaken`);
  if (list.status !== 200) throw new Error(`Open Zaak's zaken: ${list.status} ${list.text.slice(0, 300)}`);
  let kept;
  try {
    kept = JSON.parse(fs.readFileSync(FILLED, 'utf8'));
  } catch {
    kept = undefined;
  }
  if (kept && kept.orm === orm && kept.rijk === rijk && kept.selectielijst === selectielijst && kept.zaken === list.json.count) {
    console.log(`import-openzaak: Open Zaak holds the fill of ${kept.at} (${kept.zaken} zaken)`);
    return kept;
  }
  console.log(`import-openzaak: filling Open Zaak: ${rijk} zaken through its APIs, ${orm} by its ORM`);
  const t0 = Date.now();
  await pointSelectielijst(selectielijst);
  ozShell({ OZC_ACTION: 'reset' });
  const made = await fill(oz, OZ, selectielijst, (m) => console.log(`import-openzaak: ${m}`), { meer: Math.max(0, rijk - FILL_ZAKEN) });
  const api = (Date.now() - t0) / 1000;
  const t1 = Date.now();
  ozShell({ OZC_ACTION: 'orm-zaken', OZC_ZAAKTYPE: uuidOf(made.zaaktypen.A.url), OZC_AANTAL: String(orm) });
  const ormSeconds = (Date.now() - t1) / 1000;
  const count = (await oz.call('GET', `${OZ}/zaken/api/v1/zaken`)).json.count;
  const record = {
    at: new Date().toISOString(),
    orm,
    rijk,
    selectielijst,
    zaken: count,
    fillSeconds: { api: Number(api.toFixed(1)), orm: Number(ormSeconds.toFixed(1)) },
  };
  fs.writeFileSync(FILLED, JSON.stringify(record, null, 2));
  console.log(`import-openzaak: filled in ${api.toFixed(0)} s through the APIs and ${ormSeconds.toFixed(0)} s by the ORM: ${count} zaken`);
  return record;
}

async function importOpenZaakSuite(h, db, { orm, rijk, gelijktijdig, ticks }) {
  if (!process.env.TEMPORAL_ADDRESS) execFileSync('bash', ['scripts/engines.sh', 'start', 'temporal'], { cwd: root, stdio: 'inherit' });
  const ownOpenZaak = !running();
  if (ownOpenZaak) execFileSync('bash', [OPENZAAK_SH, 'start'], { stdio: 'inherit' });
  const stamp = Date.now();
  const env = {
    TRANSFER_SECRET: randomBytes(24).toString('hex'),
    TRANSFER_TASK_QUEUE: `bench-ozimport-${stamp}`,
    KAFKA_TOPIC_PREFIX: `bench-ozimp-${stamp}-`,
    TRANSFER_METRICS_PORT: '0',
    NOTIFIER_METRICS_PORT: '0',
    AUDIT_METRICS_PORT: '0',
  };
  const api = h.startApi(h.PORT, db, env);
  const workers = {};
  try {
    await h.up(api.base);
    const fillRecord = await filled(api.base, { orm, rijk });
    // (each as npm start runs it; BENCH_WORKER_NODE_ARGS, e.g. --cpu-prof, for the transfer worker)
    for (const name of WORKERS) {
      const extra = name === 'transfer' ? (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
      workers[name] = spawn(process.execPath, [...(NODE_ARGS[name] ?? []), ...extra, `services/${name}/dist/main.js`], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          ...env,
          PORT: String(h.PORT),
          MONGODB_DB: db,
          PUBLIC_BASE_URL: api.base,
          LOG_LEVEL: 'warn',
          ZGW_CLIENTS: 'bench:bench-secret:all',
        },
      });
    }
    // the workers have started (the transfer worker bundled its workflows) and wait
    await sleep(3000);
    await h.quiet(workers.transfer.pid);

    const named = {
      api: { pid: api.pid },
      ...Object.fromEntries(WORKERS.map((n) => [n, { pid: workers[n].pid }])),
      ...Object.fromEntries(Object.entries(engines(h)).map(([n, pid]) => [n, { pid }])),
      ...openZaakProcesses(),
    };
    const seconds = (p) => {
      try {
        return p.tree ? treeSeconds(h, p.pid, ticks) : h.cpuSeconds(p.pid);
      } catch {
        return undefined;
      }
    };
    const cpu = Object.fromEntries(Object.keys(named).map((n) => [n, { first: seconds(named[n]), last: seconds(named[n]), max: 0 }]));
    let sampledAt = Date.now();
    const sampler = setInterval(() => {
      const now = Date.now();
      for (const [n, p] of Object.entries(named)) {
        const s = seconds(p);
        if (s === undefined || cpu[n].last === undefined) continue;
        cpu[n].max = Math.max(cpu[n].max, (s - cpu[n].last) / ((now - sampledAt) / 1000));
        cpu[n].last = s;
      }
      sampledAt = now;
    }, 1000);

    const started = Date.now();
    const loadBefore = os.loadavg()[0];
    const run = await h.post(`${api.base}/admin/api/v1/importen`, {
      bron: OZ,
      clientId: OZ_CLIENT,
      secret: OZ_SECRET,
      ...(gelijktijdig ? { gelijktijdig } : {}),
    });
    const stages = {};
    const pace = [];
    let view;
    for (;;) {
      await sleep(2000);
      view = (await h.call('GET', `${api.base}/admin/api/v1/importen/${run.id}`)).json();
      const at = (Date.now() - started) / 1000;
      // (a collection's counts from the first poll that finds them to the last that finds them changed: a page's counts
      // are kept once it is stored, so a small collection shows up complete)
      for (const [soort, t] of Object.entries(view.tellingen)) {
        const key = JSON.stringify(t);
        if (!stages[soort] && !Object.values(t).some((x) => x > 0)) continue;
        const s = (stages[soort] ??= { from: at, to: at, key });
        if (s.key !== key) Object.assign(s, { to: at, key });
      }
      if (view.tempo) pace.push(view.tempo);
      if (!['bezig', 'gepauzeerd'].includes(view.status)) break;
    }
    clearInterval(sampler);
    const total = (Date.now() - started) / 1000;
    const tellingen = Object.values(view.tellingen);
    const zaken = view.tellingen['zaken/zaken'] ?? { nieuw: 0, bijgewerkt: 0 };
    // (where the time goes: the collections in the order they were complete, each with the time since the one before)
    const stageRows = Object.entries(stages)
      .sort((a, b) => a[1].to - b[1].to || a[1].from - b[1].from)
      .map(([soort, s]) => {
        const t = view.tellingen[soort];
        return {
          soort,
          fromSeconds: s.from,
          toSeconds: s.to,
          seconds: Number((s.to - s.from).toFixed(0)),
          gelezen: t.gelezen,
          nieuw: t.nieuw,
          mislukt: t.mislukt,
          bytes: t.bytes,
        };
      });
    stageRows.forEach((row, i) => (row.sincePreviousSeconds = Number((row.toSeconds - (stageRows[i - 1]?.toSeconds ?? 0)).toFixed(0))));
    const lastStage = Math.max(0, ...stageRows.map((s) => s.toSeconds));
    const processes = Object.fromEntries(
      Object.entries(cpu).map(([n, c]) => [
        n,
        {
          averageCores: c.first === undefined || c.last === undefined ? null : Number(((c.last - c.first) / total).toFixed(2)),
          maxCores: Number(c.max.toFixed(2)),
        },
      ]),
    );
    const platform = ['api', ...WORKERS];
    const uwsgi = Object.keys(processes).filter((n) => n.startsWith('openzaak uwsgi worker'));
    const rates = pace.map((p) => p.verzoekenPerSeconde).filter((x) => x > 0);
    const result = {
      source: `Open Zaak 1.21.0 at ${OZ} (uWSGI 2 processes x 2 threads)`,
      fill: fillRecord,
      status: view.status,
      fout: view.fout ?? null,
      failed: view.fouten.length,
      fouten: view.fouten.slice(0, 10),
      zaken: zaken.nieuw + zaken.bijgewerkt,
      seconds: Number(total.toFixed(1)),
      zakenPerSecond: Number(((zaken.nieuw + zaken.bijgewerkt) / total).toFixed(1)),
      objects: tellingen.reduce((n, x) => n + x.nieuw + x.bijgewerkt, 0),
      contentBytes: tellingen.reduce((n, x) => n + x.bytes, 0),
      sourceRequests: view.tempo?.verzoeken ?? null,
      sourceRequestsPerSecond: view.tempo ? Number((view.tempo.verzoeken / total).toFixed(1)) : null,
      sourceRequestsPerSecondSeen: rates.length
        ? { average: Number((rates.reduce((a, b) => a + b, 0) / rates.length).toFixed(1)), max: Math.max(...rates) }
        : null,
      sourceP95Ms: { last: view.tempo?.p95Ms ?? null, max: Math.max(0, ...pace.map((p) => p.p95Ms ?? 0)) },
      gelijktijdig: view.tempo?.gelijktijdig ?? view.gelijktijdig ?? null,
      // (the share of the progress polls that found requests waiting for their turn: the bound to the source in use)
      sourceTurnsFull: pace.length ? Number((pace.filter((p) => p.wachtend > 0).length / pace.length).toFixed(2)) : null,
      // (the machine's 1-minute load average before and after: other work on it takes the cores from both sides)
      loadAverage: { before: Number(loadBefore.toFixed(1)), after: Number(os.loadavg()[0].toFixed(1)) },
      stages: stageRows,
      afterStagesSeconds: Number((total - lastStage).toFixed(0)),
      processes,
    };
    // (whether the source is the bottleneck shows in a run at more requests at once: it brings no more)
    result.target = { platformBelowHalfACore: platform.every((n) => (processes[n].averageCores ?? 0) < 0.5) };
    result.sourceWorkersCores = Number(uwsgi.reduce((sum, n) => sum + (processes[n].averageCores ?? 0), 0).toFixed(2));
    console.log(
      `  import from Open Zaak of ${result.zaken} zaken: ${result.status} in ${result.seconds} s = ${result.zakenPerSecond} zaken/s, ${result.failed} failed`,
    );
    console.log(
      `  source: ${result.sourceRequests} requests, ${result.sourceRequestsPerSecond}/s, p95 ${result.sourceP95Ms.last} ms (at most ${result.sourceP95Ms.max}), ${result.gelijktijdig} at once`,
    );
    for (const s of stageRows)
      console.log(
        `  complete at ${s.toSeconds.toFixed(0)} s (+${s.sincePreviousSeconds} s): ${s.soort}, counted from ${s.fromSeconds.toFixed(0)} s, ${s.gelezen} read, ${s.nieuw} new, ${s.mislukt} failed`,
      );
    console.log(`  after the stages (verification): ${result.afterStagesSeconds} s`);
    console.log(
      `  requests waiting for a turn in ${Math.round(100 * (result.sourceTurnsFull ?? 0))}% of the polls; load average ${result.loadAverage.before} -> ${result.loadAverage.after}`,
    );
    for (const [n, p] of Object.entries(processes)) console.log(`  cpu ${n}: average ${p.averageCores}, max ${p.maxCores} cores`);
    return { ...result, results: [] };
  } finally {
    for (const w of Object.values(workers)) {
      if (w.exitCode !== null) continue;
      const exited = new Promise((r) => w.once('exit', r));
      w.kill('SIGTERM');
      await exited;
    }
    await h.stopApi(api);
    if (ownOpenZaak) execFileSync('bash', [OPENZAAK_SH, 'stop'], { stdio: 'inherit' });
  }
}

module.exports = { importOpenZaakSuite };
