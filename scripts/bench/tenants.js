// The tenants suite of scripts/bench.js: whether a tenant's cost follows its own size, not the installation's. One
// build, one database: tenant 1 with --per-tenant zaken (default 500) alone in the store, measured; then --tenants - 1
// others (default 199) with the same workload each (their own catalogus, the same BSNs), and tenant 1 measured again.
// Operations, at 16 clients as tenant 1's client: list page 1 of zaken and `_zoek` by BSN. Targets: each keeps at
// least 80% of the req/s it had alone, and the store's query p99 stays < 5 ms.
const autocannon = require('autocannon');
const { createSigner } = require('fast-jwt');

const FILTER = 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn';

/** RSINs: nine digits passing the eleven test, counted up from 100000000. */
function rsins(count) {
  const out = [];
  for (let n = 10000000; out.length < count; n++) {
    const d = String(n).padStart(8, '0').split('').map(Number);
    const sum = d.reduce((s, x, i) => s + x * (9 - i), 0);
    const last = sum % 11;
    if (last < 10) out.push(`${d.join('')}${last}`);
  }
  return out;
}

async function tenantsSuite(h, db, mongo, { tenants, perTenant }) {
  const ids = rsins(tenants);
  const secret = (i) => `bench-tenant-${i}-secret`;
  // every tenant's client, made with its tenant at start (ZGW_CLIENTS id:secret:all@rsin)
  const clients = ids.map((rsin, i) => `tenant${i}:${secret(i)}:all@${rsin}`).join(',');
  // (an API of several tenants starts only with /metrics behind a token)
  const api = h.startApi(h.PORT, db, { KAFKA_TOPIC_PREFIX: `benchtenants${Date.now()}.`, ZGW_CLIENTS: `bench:bench-secret:all,${clients}`, METRICS_TOKEN: 'the metrics token of the tenants bench' });
  const as = ids.map((_, i) => ({ authorization: `Bearer ${createSigner({ key: secret(i) })({ client_id: `tenant${i}`, user_id: 'bench', user_representation: 'Bench' })}` }));
  const outbox = () => mongo.db(db).collection('outbox').countDocuments({});
  const zrc = `${api.base}/zaken/api/v1`;
  const pool = h.bsnPool(Math.max(1, Math.round(perTenant / 5)));
  const load = async (i, quiet) => {
    const types = await h.zaaktypeForZaken(`${api.base}/catalogi/api/v1`, as[i]);
    await h.loadZaken(zrc, types, pool, perTenant, outbox, as[i], quiet);
  };
  const measureAll = async (label) => {
    const headers = { ...h.zrcHeaders, ...as[0] };
    // JIT and connection warm-up (not reported)
    await new Promise((resolve, reject) => autocannon({ duration: 3, connections: 16, headers, url: `${zrc}/zaken` }, (e) => (e ? reject(e) : resolve())));
    const out = [];
    out.push(await h.measure(`GET /zaken (page 1), tenant 1 ${label}`, 16, { pid: api.pid, url: `${zrc}/zaken`, headers }));
    out.push(await h.measure(`POST /zaken/_zoek (BSN), tenant 1 ${label}`, 16, {
      pid: api.pid,
      url: `${zrc}/zaken/_zoek`,
      requests: [{
        method: 'POST',
        setupRequest: (req) => {
          req.headers = { ...headers };
          req.body = JSON.stringify({ [FILTER]: pool[Math.floor(Math.random() * pool.length)] });
          return req;
        },
      }],
    }));
    return out.filter(Boolean);
  };
  try {
    await h.up(api.base);
    console.log(`tenants: tenant 1 of ${tenants}, ${perTenant} zaken, alone in the store`);
    await load(0, false);
    await h.drained(outbox);
    await h.quiet(api.pid);
    const zaken = (await h.call('GET', `${zrc}/zaken`, undefined, { ...h.zrcHeaders, ...as[0] })).json().count;
    if (zaken !== perTenant) throw new Error(`tenants: tenant 1 lists ${zaken} zaken, not ${perTenant}`);
    const alone = await measureAll('alone');
    console.log(`tenants: loading ${tenants - 1} other tenants of ${perTenant} zaken each`);
    const started = Date.now();
    let next = 1;
    // four tenants at a time, each at 16 clients of its own
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (next < tenants) {
        const i = next++;
        await load(i, true);
        if (i % 10 === 0) console.log(`  tenants loaded: ${i}/${tenants - 1} (${h.seconds(Date.now() - started)})`);
      }
    }));
    await h.drained(outbox);
    await h.quiet(api.pid);
    const own = (await h.call('GET', `${zrc}/zaken`, undefined, { ...h.zrcHeaders, ...as[0] })).json().count;
    if (own !== perTenant) throw new Error(`tenants: among the others tenant 1 lists ${own} zaken, not ${perTenant}`);
    const among = await measureAll(`among ${tenants}`);
    const results = [...alone, ...among];
    const ratios = alone.map((a, k) => ({ operation: a.title.replace(/, tenant 1 .*/, ''), alone: a.requestsPerSecond, among: among[k]?.requestsPerSecond, share: among[k] ? Number((among[k].requestsPerSecond / a.requestsPerSecond).toFixed(2)) : undefined }));
    for (const r of ratios) console.log(`tenants: ${r.operation}: ${r.alone} req/s alone, ${r.among} among ${tenants} tenants (${Math.round((r.share ?? 0) * 100)}%; target >= 80%)`);
    const p99 = Math.max(...results.map((r) => r.storeQueryP99ms ?? 0));
    console.log(`tenants: store query p99 at most ${p99} ms (target < 5 ms)`);
    return { tenants, perTenant, results, ratios, storeQueryP99ms: p99 };
  } finally {
    await h.stopApi(api);
  }
}

module.exports = { tenantsSuite };
