// The import suite of scripts/bench.js: the registration import end to end. A second instance of the platform (its own
// database and topics) holds --zaken (20,000) zaken, each with 2 rollen, 3 statussen and 1 document of 20 KB linked to
// it, in a catalogus of its own; the import brings all of it (the catalogus first) into the measured instance through
// services/transfer as its own process. Reported: zaken a second end to end, objects and content bytes, the time of
// each collection, and the RSS of the API and the worker (before, and the most they grew while importing). Targets:
// >= 100 zaken a second; neither grows more than 300 MB.
const { execFileSync, spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { NODE_ARGS } = require('../node-args');

const root = path.join(__dirname, '..', '..');
const SECRET = 'the transfer worker secret of the import bench';
const DOC_BYTES = 20 * 1024;

/** The resident memory of a process, in MB. */
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

/** A catalogus with a published zaaktype of 4 statustypen and a roltype, and a published informatieobjecttype. */
async function typen(h, base) {
  const ztc = `${base}/catalogi/api/v1`;
  const publish = async (url) => {
    const res = await h.call('POST', `${url}/publish`);
    if (res.status !== 200) throw new Error(`publish ${url}: ${res.status} ${res.text.slice(0, 300)}`);
  };
  const catalogus = (await h.post(`${ztc}/catalogussen`, { domein: 'IMPRT', rsin: '000000000', contactpersoonBeheerNaam: 'Bench' })).url;
  const iot = await h.post(`${ztc}/informatieobjecttypen`, { catalogus, omschrijving: 'bijlage', vertrouwelijkheidaanduiding: 'openbaar', beginGeldigheid: '2020-01-01', informatieobjectcategorie: 'bench' });
  await publish(iot.url);
  const zt = await h.post(`${ztc}/zaaktypen`, { ...h.zaaktype(catalogus, 0), identificatie: 'ZT-IMPORT', omschrijving: 'Zaaktype import' });
  const statustypen = [];
  for (let i = 1; i <= 4; i++) statustypen.push((await h.post(`${ztc}/statustypen`, { zaaktype: zt.url, omschrijving: `stap ${i}`, volgnummer: i })).url);
  const roltype = (await h.post(`${ztc}/roltypen`, { zaaktype: zt.url, omschrijving: 'Betrokkene', omschrijvingGeneriek: 'belanghebbende' })).url;
  await h.post(`${ztc}/zaaktype-informatieobjecttypen`, { zaaktype: zt.url, informatieobjecttype: 'bijlage', volgnummer: 1, richting: 'inkomend' });
  await publish(zt.url);
  return { zaaktype: zt.url, statustypen, roltype, iot: iot.url };
}

/** One zaak of the source: 2 rollen, 3 statussen (it stays open), a document of 20 KB linked to it. */
async function zaak(h, base, t, i) {
  const zrc = `${base}/zaken/api/v1`;
  const z = await h.post(`${zrc}/zaken`, { bronorganisatie: '000000000', verantwoordelijkeOrganisatie: '000000000', zaaktype: t.zaaktype, startdatum: '2023-03-01', omschrijving: `import ${i}` }, h.CRS);
  for (let r = 0; r < 2; r++) {
    await h.post(`${zrc}/rollen`, { zaak: z.url, roltype: t.roltype, betrokkeneType: 'natuurlijk_persoon', roltoelichting: `rol ${r}`, betrokkeneIdentificatie: { geslachtsnaam: `Naam ${i}-${r}` } });
  }
  const doc = await h.post(`${base}/documenten/api/v1/enkelvoudiginformatieobjecten`, {
    bronorganisatie: '000000000', creatiedatum: '2023-03-01', titel: `document ${i}`, auteur: 'bench', taal: 'dut', indicatieGebruiksrecht: false,
    inhoud: randomBytes(DOC_BYTES).toString('base64'), informatieobjecttype: t.iot,
  });
  await h.post(`${zrc}/zaakinformatieobjecten`, { zaak: z.url, informatieobject: doc.url });
  for (let s = 0; s < 3; s++) await h.post(`${zrc}/statussen`, { zaak: z.url, statustype: t.statustypen[s], datumStatusGezet: `2023-03-0${2 + s}T10:00:00Z` });
}

async function importSuite(h, db, { zaken, sourceDb }) {
  if (!process.env.TEMPORAL_ADDRESS) execFileSync('bash', ['scripts/engines.sh', 'start', 'temporal'], { cwd: root, stdio: 'inherit' });
  const stamp = Date.now();
  const queue = `bench-import-${stamp}`;
  const api = h.startApi(h.PORT, db, { TRANSFER_SECRET: SECRET, TRANSFER_TASK_QUEUE: queue, KAFKA_TOPIC_PREFIX: `bench-imp-${stamp}-` });
  const bron = h.startApi(h.PORT + 1, sourceDb ?? `${db}_bron`, { TRANSFER_SECRET: SECRET, TRANSFER_TASK_QUEUE: `${queue}-bron`, KAFKA_TOPIC_PREFIX: `bench-impb-${stamp}-` });
  let worker;
  try {
    await h.up(api.base);
    await h.up(bron.base);
    // (a source loaded by an earlier run with --source-db is used as it is; an empty one is loaded and kept there)
    const list = sourceDb && (await h.call('GET', `${bron.base}/zaken/api/v1/zaken`, undefined, h.CRS));
    if (list && list.status !== 200) throw new Error(`the source's zaken: ${list.status} ${list.text.slice(0, 300)}`);
    const held = list ? list.json().count : 0;
    if (held) {
      zaken = held;
      console.log(`import: the source ${sourceDb} holds ${zaken} zaken`);
    } else {
      const t = await typen(h, bron.base);
      console.log(`import: loading ${zaken} zaken into the source (2 rollen, 3 statussen, a document of 20 KB each)`);
      const loadStart = Date.now();
      let next = 0;
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (next < zaken) await zaak(h, bron.base, t, next++);
      }));
      console.log(`import: loaded in ${h.seconds(Date.now() - loadStart)}`);
    }

    const workerArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    worker = spawn(process.execPath, [...NODE_ARGS.transfer, ...workerArgs, 'services/transfer/dist/main.js'], {
      cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, TRANSFER_SECRET: SECRET, TRANSFER_TASK_QUEUE: queue, MONGODB_DB: db, PUBLIC_BASE_URL: api.base, LOG_LEVEL: 'warn', TRANSFER_METRICS_PORT: '0' },
    });
    // the worker has bundled its workflows and waits (its RSS from there on is what the import adds)
    await new Promise((r) => setTimeout(r, 3000));
    for (let i = 0; i < 30; i++) {
      const busy = h.cpuSeconds(worker.pid);
      await new Promise((r) => setTimeout(r, 1000));
      if (h.cpuSeconds(worker.pid) - busy < 0.05) break;
    }
    const before = { api: rssMb(api.pid), worker: rssMb(worker.pid) };
    const most = { ...before };
    const cpu = { api: h.cpuSeconds(api.pid), worker: h.cpuSeconds(worker.pid), bron: h.cpuSeconds(bron.pid), store: h.STORE.pid ? h.cpuSeconds(h.STORE.pid) : 0 };
    const started = Date.now();
    const run = await h.post(`${api.base}/admin/api/v1/importen`, { bron: bron.base, clientId: 'bench', secret: 'bench-secret' });
    const seen = {};
    let view;
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      most.api = Math.max(most.api, rssMb(api.pid));
      most.worker = Math.max(most.worker, rssMb(worker.pid));
      view = (await h.call('GET', `${api.base}/admin/api/v1/importen/${run.id}`)).json();
      // when each collection was first seen done with (the next one began): its time
      for (const key of Object.keys(view.tellingen)) seen[key] ??= (Date.now() - started) / 1000;
      if (!['bezig', 'gepauzeerd'].includes(view.status)) break;
    }
    const seconds = (Date.now() - started) / 1000;
    const used = (pid, from) => Number(((h.cpuSeconds(pid) - from) / seconds).toFixed(2));
    const tellingen = Object.values(view.tellingen);
    const objects = tellingen.reduce((n, x) => n + x.nieuw + x.bijgewerkt, 0);
    const result = {
      zaken, status: view.status, fout: view.fout ?? null, failed: view.fouten.length,
      seconds: Number(seconds.toFixed(1)),
      zakenPerSecond: Number((zaken / seconds).toFixed(1)),
      objects, objectsPerSecond: Math.round(objects / seconds),
      contentBytes: tellingen.reduce((n, x) => n + x.bytes, 0),
      collectionStartedAtSeconds: seen,
      // (the local store serves both instances)
      coresUsed: { api: used(api.pid, cpu.api), worker: used(worker.pid, cpu.worker), source: used(bron.pid, cpu.bron), ...(h.STORE.pid ? { store: used(h.STORE.pid, cpu.store) } : {}) },
      rssMb: { apiBefore: before.api, apiGrowth: most.api - before.api, workerBefore: before.worker, workerGrowth: most.worker - before.worker },
      verificatie: view.verificatie, inhoudVerificatie: view.inhoudVerificatie && { versies: view.inhoudVerificatie.versies, aantalAfwijkend: view.inhoudVerificatie.aantalAfwijkend },
    };
    result.target = {
      atLeast100ZakenPerSecond: result.zakenPerSecond >= 100,
      rssGrowthAtMost300Mb: result.rssMb.apiGrowth <= 300 && result.rssMb.workerGrowth <= 300,
    };
    console.log(`  import of ${zaken} zaken: ${result.status} in ${result.seconds} s = ${result.zakenPerSecond} zaken/s, ${result.objectsPerSecond} objects/s, ${result.failed} failed`);
    console.log(`  cores used: API ${result.coresUsed.api}, worker ${result.coresUsed.worker}, source ${result.coresUsed.source}, store ${result.coresUsed.store ?? '-'}; RSS API ${before.api} MB +${result.rssMb.apiGrowth}, worker ${before.worker} MB +${result.rssMb.workerGrowth}`);
    return { ...result, results: [] };
  } finally {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
    await h.stopApi(api);
    await h.stopApi(bron);
  }
}

module.exports = { importSuite };
