// The transfer suite of scripts/bench.js: ZSDMS transfers per minute at --concurrent (8) transfers in flight, on the
// internal route (another organisation on the same platform) and on the external route (a second instance of the
// platform, with its own database, topics and credentials, over HTTP), with the time each step took.
//
// Each zaak (--transfers per route, default 40) has 5 rollen, 10 statussen, 10 documents of 100 KB and 2 besluiten
// (each laid down in one of the documents). The API, the second instance and services/transfer run as their own
// processes on the engines of the other suites plus Temporal (started by scripts/engines.sh when TEMPORAL_ADDRESS is
// unset). Reported per route: transfers/minute, the median and p90 duration of a transfer, and of each step.
const { randomBytes } = require('node:crypto');
const { spawn, execFileSync } = require('node:child_process');
const { NODE_ARGS } = require('../node-args');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const SECRET = 'the transfer worker secret of the transfer bench';
const DOC_BYTES = 100 * 1024;

/** A catalogus of `rsin` with a published zaaktype: 11 statustypen, a roltype, an informatieobjecttype and a besluittype. */
async function typen(h, base, rsin, identificatie) {
  const ztc = `${base}/catalogi/api/v1`;
  const publish = async (url) => {
    const res = await h.call('POST', `${url}/publish`);
    if (res.status !== 200) throw new Error(`publish ${url}: ${res.status} ${res.text.slice(0, 300)}`);
  };
  const catalogus = (await h.post(`${ztc}/catalogussen`, { domein: `B${Math.floor(Math.random() * 9999)}`, rsin, contactpersoonBeheerNaam: 'Bench' })).url;
  const iot = await h.post(`${ztc}/informatieobjecttypen`, { catalogus, omschrijving: 'bijlage', vertrouwelijkheidaanduiding: 'openbaar', beginGeldigheid: '2020-01-01', informatieobjectcategorie: 'bench' });
  await publish(iot.url);
  const bt = await h.post(`${ztc}/besluittypen`, { catalogus, omschrijving: 'vergunning', publicatieIndicatie: false, informatieobjecttypen: ['bijlage'], beginGeldigheid: '2020-01-01' });
  await publish(bt.url);
  const zt = await h.post(`${ztc}/zaaktypen`, { ...h.zaaktype(catalogus, 0), identificatie, omschrijving: `Zaaktype ${identificatie}`, besluittypen: [bt.url], trefwoorden: [] });
  const statustypen = [];
  for (let i = 1; i <= 11; i++) statustypen.push((await h.post(`${ztc}/statustypen`, { zaaktype: zt.url, omschrijving: `stap ${i}`, volgnummer: i })).url);
  const roltype = (await h.post(`${ztc}/roltypen`, { zaaktype: zt.url, omschrijving: 'Betrokkene', omschrijvingGeneriek: 'belanghebbende' })).url;
  await h.post(`${ztc}/zaaktype-informatieobjecttypen`, { zaaktype: zt.url, informatieobjecttype: 'bijlage', volgnummer: 1, richting: 'inkomend' });
  await publish(zt.url);
  return { catalogus, zaaktype: zt.url, statustypen, roltype, iot: iot.url, besluittype: bt.url };
}

/** One zaak of the suite: 5 rollen, 10 statussen (the zaak stays open), 10 documents of 100 KB, 2 besluiten. */
async function zaak(h, base, t, i) {
  const zrc = `${base}/zaken/api/v1`;
  const crs = { 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' };
  const z = await h.post(`${zrc}/zaken`, { bronorganisatie: '000000000', verantwoordelijkeOrganisatie: '000000000', zaaktype: t.zaaktype, startdatum: '2024-06-01', omschrijving: `overdracht ${i}` }, crs);
  for (let r = 0; r < 5; r++) {
    await h.post(`${zrc}/rollen`, { zaak: z.url, roltype: t.roltype, betrokkeneType: 'natuurlijk_persoon', roltoelichting: `rol ${r}`, betrokkeneIdentificatie: { inpBsn: String(100000000 + i * 10 + r), geslachtsnaam: `Naam ${r}` } });
  }
  for (let s = 0; s < 10; s++) await h.post(`${zrc}/statussen`, { zaak: z.url, statustype: t.statustypen[s], datumStatusGezet: `2024-06-01T${String(8 + s).padStart(2, '0')}:00:00Z` });
  const docs = [];
  for (let d = 0; d < 10; d++) {
    const doc = await h.post(`${base}/documenten/api/v1/enkelvoudiginformatieobjecten`, {
      bronorganisatie: '000000000', creatiedatum: '2024-06-01', titel: `document ${d}`, auteur: 'bench', taal: 'dut', indicatieGebruiksrecht: false,
      inhoud: randomBytes(DOC_BYTES).toString('base64'), informatieobjecttype: t.iot,
    });
    docs.push(doc.url);
    await h.post(`${zrc}/zaakinformatieobjecten`, { zaak: z.url, informatieobject: doc.url });
  }
  for (let b = 0; b < 2; b++) {
    const besluit = await h.post(`${base}/besluiten/api/v1/besluiten`, { verantwoordelijkeOrganisatie: '000000000', besluittype: t.besluittype, zaak: z.url, datum: '2024-06-02', ingangsdatum: `2024-06-0${3 + b}` });
    await h.post(`${base}/besluiten/api/v1/besluitinformatieobjecten`, { besluit: besluit.url, informatieobject: docs[b] });
  }
  return z.url;
}

const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(2));
};

/** Runs `zaken` transfers to `doelregistratie` keeping `concurrent` in flight; returns the figures of the route. */
async function run(h, base, zaken, doelregistratie, concurrent) {
  const started = Date.now();
  const done = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrent }, async () => {
    while (next < zaken.length) {
      const zaakUrl = zaken[next++];
      const o = await h.post(`${base}/overdrachten/api/v1/overdrachten`, { zaak: zaakUrl, doelregistratie });
      for (;;) {
        await new Promise((r) => setTimeout(r, 200));
        const cur = (await h.call('GET', o.url)).json();
        if (['afgerond', 'mislukt', 'geweigerd', 'geannuleerd'].includes(cur.status) && cur.stappen.some((s) => s.stap === 'antwoord_verstuurd' && s.einde)) {
          done.push(cur);
          break;
        }
      }
    }
  }));
  const seconds = (Date.now() - started) / 1000;
  const failed = done.filter((o) => o.status !== 'afgerond');
  if (failed.length) console.log(`  ${failed.length} transfers did not complete: ${failed.slice(0, 3).map((o) => `${o.status} ${o.fout || o.weigering?.reden || ''}`).join('; ')}`);
  const totals = done.map((o) => (Date.parse(o.stappen.at(-1).einde) - Date.parse(o.aanmaakdatum)) / 1000);
  const steps = {};
  for (const o of done) for (const s of o.stappen) if (s.einde) (steps[s.stap] ??= []).push((Date.parse(s.einde) - Date.parse(s.start)) / 1000);
  return {
    transfers: done.length, completed: done.length - failed.length, concurrent, seconds: Number(seconds.toFixed(1)),
    transfersPerMinute: Number(((done.length - failed.length) / (seconds / 60)).toFixed(1)),
    transferSeconds: { p50: pct(totals, 50), p90: pct(totals, 90) },
    stepSeconds: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, { p50: pct(v, 50), p90: pct(v, 90) }])),
  };
}

async function transferSuite(h, db, { transfers, concurrent }) {
  if (!process.env.TEMPORAL_ADDRESS) execFileSync('bash', ['scripts/engines.sh', 'start', 'temporal'], { cwd: root, stdio: 'inherit' });
  const stamp = Date.now();
  const queue = `bench-transfer-${stamp}`;
  const common = { TRANSFER_SECRET: SECRET, TRANSFER_TASK_QUEUE: queue };
  const a = h.startApi(h.PORT, db, { ...common, KAFKA_TOPIC_PREFIX: `bench-tra-${stamp}-`, ZGW_CLIENTS: 'bench:bench-secret:all,platform-b:secret-b-at-a:all' });
  const b = h.startApi(h.PORT + 1, `${db}_b`, { ...common, TRANSFER_TASK_QUEUE: `${queue}-b`, KAFKA_TOPIC_PREFIX: `bench-trb-${stamp}-`, ZGW_CLIENTS: 'bench:bench-secret:all,platform-a:secret-a-at-b:all' });
  let worker;
  try {
    await h.up(a.base);
    await h.up(b.base);
    const bron = await typen(h, a.base, '000000000', 'ZT-BRON');
    const intern = await typen(h, a.base, '333333333', 'ZT-INTERN');
    const extern = await typen(h, b.base, '222222222', 'ZT-EXTERN');
    const apis = (x) => ({ zakenApi: `${x}/zaken/api/v1`, catalogiApi: `${x}/catalogi/api/v1`, documentenApi: `${x}/documenten/api/v1`, besluitenApi: `${x}/besluiten/api/v1` });
    await h.post(`${a.base}/admin/api/v1/doelregistraties`, { naam: 'intern', route: 'intern', rsin: '333333333', catalogus: intern.catalogus, zaaktypen: [{ bron: 'ZT-BRON', doel: 'ZT-INTERN' }], bron: 'openlaten' });
    await h.post(`${a.base}/admin/api/v1/doelregistraties`, { naam: 'extern', route: 'extern', rsin: '222222222', catalogus: extern.catalogus, zaaktypen: [{ bron: 'ZT-BRON', doel: 'ZT-EXTERN' }], bron: 'openlaten', ...apis(b.base), clientId: 'platform-a', secret: 'secret-a-at-b' });
    await h.post(`${b.base}/admin/api/v1/doelregistraties`, { naam: 'a', route: 'extern', rsin: '000000000', catalogus: bron.catalogus, zaaktypen: [{ bron: 'ZT-EXTERN', doel: 'ZT-BRON' }], bron: 'openlaten', ...apis(a.base), clientId: 'platform-b', secret: 'secret-b-at-a' });

    console.log(`transfer: loading ${2 * transfers} zaken (5 rollen, 10 statussen, 10 documents of 100 KB, 2 besluiten each)`);
    const loadStart = Date.now();
    const zaken = [];
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < 2 * transfers) zaken.push(await zaak(h, a.base, bron, next++));
    }));
    console.log(`transfer: loaded in ${h.seconds(Date.now() - loadStart)}`);

    worker = spawn(process.execPath, [...NODE_ARGS.transfer, 'services/transfer/dist/main.js'], {
      cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, ...common, MONGODB_DB: db, PUBLIC_BASE_URL: a.base, LOG_LEVEL: 'warn', TRANSFER_METRICS_PORT: '0' },
    });
    const results = {};
    for (const [route, doel, slice] of [['intern', 'intern', zaken.slice(0, transfers)], ['extern', 'extern', zaken.slice(transfers)]]) {
      console.log(`transfer: ${slice.length} transfers on the ${route} route, ${concurrent} at a time`);
      results[route] = await run(h, a.base, slice, doel, concurrent);
      const r = results[route];
      console.log(`  ${route}: ${r.completed}/${r.transfers} in ${r.seconds} s = ${r.transfersPerMinute} transfers/minute; a transfer p50 ${r.transferSeconds.p50} s, p90 ${r.transferSeconds.p90} s`);
      for (const [stap, t] of Object.entries(r.stepSeconds)) console.log(`    ${stap.padEnd(24)} p50 ${t.p50} s, p90 ${t.p90} s`);
    }
    return { transfers, concurrent, results: [], routes: results, target: { internalAtLeast60PerMinute: results.intern.transfersPerMinute >= 60 } };
  } finally {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
    await h.stopApi(a);
    await h.stopApi(b);
  }
}

module.exports = { transferSuite };
