// The pii suite of scripts/bench.js: what sealing personal identifiers at rest costs. The same data (--zaken, default
// 20,000 zaken, each with a rol of a natuurlijk_persoon by BSN from the same pool) is loaded through the API of two
// builds: this checkout (identifiers sealed, search hashes) and the last version that stored them in the clear
// (--plain-ref, default the commit before rollen were sealed; built once in a git worktree beside the engines'
// installs, ZGW_CACHE_DIR/bench-plain-<commit>, with its own npm ci). On each: `_zoek` by BSN with expand=rollen and rol creates
// (POST /rollen, a BSN from the pool, to a random loaded zaak), at 16 clients; measured twice, taking turns, each
// figure the better of its two runs. Target: sealed within 10% of plain.
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');

const root = path.join(__dirname, '..', '..');
const FILTER = 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn';

/** A built checkout of `ref` in a git worktree (made and built once; kept for the next run). */
function plainBuild(ref) {
  const commit = execFileSync('git', ['rev-parse', '--short', ref], { cwd: root, encoding: 'utf8' }).trim();
  const dir = path.join(process.env.ZGW_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'zgw'), `bench-plain-${commit}`);
  if (!existsSync(path.join(dir, 'services', 'api', 'dist', 'main.js'))) {
    console.log(`pii: building ${ref} (${commit}) in ${dir} (once)`);
    if (!existsSync(dir)) execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: root, stdio: 'inherit' });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir, stdio: 'inherit' });
    execFileSync('npx', ['tsc', '-b'], { cwd: dir, stdio: 'inherit' });
  }
  return { commit, dir };
}

async function piiSuite(h, db, mongo, { zaken, plainRef }) {
  const plain = plainBuild(plainRef);
  const builds = [
    { name: 'sealed', dir: root, port: h.PORT, db: `${db}_sealed` },
    { name: 'plain', dir: plain.dir, port: h.PORT + 1, db: `${db}_plain` },
  ];
  const pool = h.bsnPool(Math.max(1, Math.round(zaken / 5)));
  const prefix = `benchpii${Date.now()}.`;
  for (const b of builds) {
    b.api = h.startApi(b.port, b.db, { KAFKA_TOPIC_PREFIX: `${prefix}${b.name}.` }, b.dir);
    await h.up(b.api.base);
    const zrc = `${b.api.base}/zaken/api/v1`;
    b.types = await h.zaaktypeForZaken(`${b.api.base}/catalogi/api/v1`);
    console.log(`pii: loading ${zaken} zaken with a rol by BSN into the ${b.name} build`);
    b.loaded = await h.loadZaken(zrc, b.types, pool, zaken, () => mongo.db(b.db).collection('outbox').countDocuments({}));
    await h.drained(() => mongo.db(b.db).collection('outbox').countDocuments({}));
    const stored = await mongo.db(b.db).collection('rollen').findOne({});
    b.sealed = JSON.stringify(stored?.betrokkeneIdentificatie ?? {}).includes('"pii:');
    const zoek = await h.call('POST', `${zrc}/zaken/_zoek`, { [FILTER]: pool[0], expand: 'rollen' }, h.CRS);
    b.found = zoek.json().count;
    console.log(`pii: ${b.name}: identifiers ${b.sealed ? 'sealed' : 'in the clear'} at rest; _zoek by one BSN finds ${b.found} zaken`);
    if (!(b.found > 0)) throw new Error(`pii: the ${b.name} build does not find the loaded zaken by BSN`);
  }
  if (!builds[0].sealed || builds[1].sealed) throw new Error('pii: the builds do not differ in what they store');

  const operations = (b) => [
    {
      title: 'POST /zaken/_zoek (BSN, expand=rollen)',
      url: `${b.api.base}/zaken/api/v1/zaken/_zoek`,
      body: () => ({ [FILTER]: pool[Math.floor(Math.random() * pool.length)], expand: 'rollen' }),
    },
    {
      title: 'POST /rollen (create, BSN)',
      url: `${b.api.base}/zaken/api/v1/rollen`,
      body: () => ({
        zaak: `${b.api.base}${b.loaded.paths[Math.floor(Math.random() * b.loaded.paths.length)]}`,
        roltype: b.types.roltype,
        betrokkeneType: 'natuurlijk_persoon',
        roltoelichting: 'belanghebbende',
        betrokkeneIdentificatie: { inpBsn: pool[Math.floor(Math.random() * pool.length)], geslachtsnaam: 'Jansen' },
      }),
    },
  ];
  const run = (b, op) =>
    h.measure(`${op.title} [${b.name}]`, 16, {
      pid: b.api.pid,
      url: op.url,
      requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, headers: { ...h.zrcHeaders }, body: JSON.stringify(op.body()) }) }],
      settle: async () => ({ relayLagMs: await h.drained(() => mongo.db(b.db).collection('outbox').countDocuments({})) }),
    });
  const results = [];
  try {
    // JIT warm-up of both (not reported)
    for (const b of builds) {
      for (const op of operations(b)) {
        await new Promise((resolve, reject) =>
          autocannon({ duration: 3, connections: 16, url: op.url, requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, headers: { ...h.zrcHeaders }, body: JSON.stringify(op.body()) }) }] }, (e) => (e ? reject(e) : resolve())),
        );
      }
    }
    for (let round = 0; round < 2; round++) {
      for (const i of [0, 1]) {
        for (const b of round === 0 ? builds : [...builds].reverse()) {
          const row = await run(b, operations(b)[i]);
          if (row) results.push({ ...row, build: b.name, operation: operations(b)[i].title, round });
        }
      }
    }
  } finally {
    for (const b of builds) await h.stopApi(b.api);
  }
  const best = (build, operation) =>
    results.filter((r) => r.build === build && r.operation === operation).sort((a, b) => b.requestsPerSecond - a.requestsPerSecond)[0];
  const comparison = operations(builds[0]).map(({ title }) => {
    const s = best('sealed', title);
    const p = best('plain', title);
    const ratio = s && p ? Number((s.requestsPerSecond / p.requestsPerSecond).toFixed(3)) : null;
    return { operation: title, sealed: s?.requestsPerSecond, plain: p?.requestsPerSecond, sealedP99ms: s?.p99ms, plainP99ms: p?.p99ms, ratio, within10Percent: ratio === null ? null : ratio >= 0.9 };
  });
  for (const c of comparison) {
    console.log(`pii: ${c.operation}: sealed ${c.sealed} req/s (p99 ${c.sealedP99ms} ms), plain ${c.plain} req/s (p99 ${c.plainP99ms} ms): ${(c.ratio * 100).toFixed(1)}% (target >= 90%: ${c.within10Percent ? 'met' : 'NOT met'})`);
  }
  return { zaken, bsns: pool.length, plainRef, plainCommit: plain.commit, results, comparison };
}

module.exports = { piiSuite };
