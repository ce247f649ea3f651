// The documents suites of scripts/bench.js.
//
//   documents        loads N enkelvoudiginformatieobjecten (default 1,000,000): the first slice through the API
//                    (16 clients), the rest by the bulk loader (documents-loader.js) as copies of one the API made;
//                    then at 1 and 16 clients: create with 10 KB content (its event published), download, detail,
//                    list page 1 and a deep page (10,000 at 1,000,000 documents) of the unfiltered list.
//   documents-large  1 GiB documents (--parallel at a time, default 1) uploaded in bestandsdelen and downloaded again,
//                    content in --store (gridfs or s3), the API's RSS sampled every 50 ms during both: the growth over
//                    the RSS before the upload is the figure.
const { createHash, randomBytes } = require('node:crypto');
const http = require('node:http');
const { readFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { bulkLoad, templateOf } = require('./documents-loader');

const DRC = '/documenten/api/v1';
const EIO = `${DRC}/enkelvoudiginformatieobjecten`;

/** A published informatieobjecttype in a catalogus of its own. */
async function informatieobjecttype(h, base) {
  const ZTC = `${base}/catalogi/api/v1`;
  const catalogus = (await h.post(`${ZTC}/catalogussen`, { domein: 'DBNCH', rsin: '002220647', contactpersoonBeheerNaam: 'Bench' })).url;
  const iot = await h.post(`${ZTC}/informatieobjecttypen`, {
    catalogus, omschrijving: 'Aanvraag', vertrouwelijkheidaanduiding: 'openbaar', beginGeldigheid: '2020-01-01', informatieobjectcategorie: 'bench',
  });
  const res = await h.call('POST', `${iot.url}/publish`);
  if (res.status !== 200) throw new Error(`publish ${iot.url}: ${res.status} ${res.text.slice(0, 500)}`);
  return iot.url;
}

const eioBody = (iot, i, inhoud) => ({
  bronorganisatie: '002220647', creatiedatum: '2024-03-01', titel: `Aanvraag ${i}`, auteur: 'J. de Vries', taal: 'dut',
  formaat: 'text/plain', bestandsnaam: `aanvraag-${i}.txt`, informatieobjecttype: iot, inhoud,
});

/** RSS of a process in bytes. */
function rss(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const MB = 1024 * 1024;
const mb = (bytes) => Number((bytes / MB).toFixed(1));

/** Runs `fn` while sampling the RSS of `pid` every 50 ms; returns fn's result and the largest sample. */
async function sampled(pid, fn) {
  let max = rss(pid);
  const timer = setInterval(() => { max = Math.max(max, rss(pid)); }, 50);
  try {
    const result = await fn();
    return { result, maxRss: Math.max(max, rss(pid)) };
  } finally {
    clearInterval(timer);
  }
}

// ---------------------------------------------------------------- documents

/**
 * Creates `count` small documents through the API at 16 clients; returns their paths. Progress every 5 s.
 */
async function createThroughApi(h, base, iot, count) {
  const paths = [];
  let next = 0;
  const started = Date.now();
  const progress = setInterval(() => {
    const rate = paths.length / ((Date.now() - started) / 1000);
    console.log(`  documents through the API ${paths.length}/${count} (${Math.round(rate)}/s, ETA ${h.seconds(((count - paths.length) / Math.max(rate, 1)) * 1000)})`);
  }, 5000);
  try {
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < count) {
        const i = next++;
        paths.push(h.pathOf((await h.post(`${base}${EIO}`, eioBody(iot, i, Buffer.from(`Aanvraag ${i}\n`).toString('base64')))).url));
      }
    }));
  } finally {
    clearInterval(progress);
  }
  return { paths, seconds: (Date.now() - started) / 1000 };
}

async function documentsSuite(h, db, mongo, { documents, viaApi }) {
  const spool = path.join(tmpdir(), `zgw-bench-spool-${Date.now()}`);
  const api = h.startApi(h.PORT, db, { AUDIT_SPOOL_DIR: spool });
  const database = mongo.db(db);
  const outboxWaiting = () => database.collection('outbox').countDocuments({});
  try {
    await h.up(api.base);
    const iot = await informatieobjecttype(h, api.base);
    const first = Math.min(viaApi, documents);
    console.log(`documents: creating ${first} documents through the API at 16 clients`);
    const made = await createThroughApi(h, api.base, iot, first);
    console.log(`documents: ${first} created through the API in ${made.seconds.toFixed(1)} s (${Math.round(first / made.seconds)}/s at 16 clients)`);
    await h.drained(outboxWaiting);

    // The rest: copies of the first document the API made, registered before it (so page 1 shows bulk documents).
    const rest = documents - first;
    const template = await templateOf(database, made.paths[0].split('/').pop());
    const started = Date.now();
    let last = { at: started, done: 0 };
    let done = 0;
    const progress = setInterval(() => {
      const now = Date.now();
      const rate = (done - last.done) / ((now - last.at) / 1000);
      const overall = done / ((now - started) / 1000);
      last = { at: now, done };
      console.log(`  documents bulk-loaded ${done}/${rest} (${Math.round(rate)}/s now, ${Math.round(overall)}/s overall, ETA ${h.seconds(((rest - done) / Math.max(overall, 1)) * 1000)})`);
    }, 5000);
    let loaded = [];
    try {
      loaded = await bulkLoad(database, template, {
        count: rest, from: new Date(template.doc._created.getTime() - rest - 60_000), audit: false, progress: (n) => { done = n; },
      });
    } finally {
      clearInterval(progress);
    }
    const loadSeconds = (Date.now() - started) / 1000;
    console.log(`documents: ${rest} bulk-loaded in ${loadSeconds.toFixed(1)} s (${Math.round(rest / Math.max(loadSeconds, 0.001))}/s)`);

    // Sanity: the API sees every document, with its content.
    const list = await h.call('GET', `${api.base}${EIO}`);
    const count = list.status === 200 ? list.json().count : `status ${list.status}`;
    const someBulk = loaded[loaded.length - 1] ? `${EIO}/${loaded[loaded.length - 1]}` : made.paths[0];
    const detail = await h.call('GET', `${api.base}${someBulk}`);
    const download = await h.call('GET', `${api.base}${someBulk}/download`);
    console.log(`documents: the list counts ${count}; a loaded document reads ${detail.status} and downloads ${download.status} (${JSON.stringify(download.text.trim())})`);
    if (count !== documents || detail.status !== 200 || download.status !== 200 || !download.text.startsWith(detail.json().identificatie)) {
      throw new Error('the loaded documents are not what the API sees');
    }

    // What the local store holds them in: its heap after a full collection (what is live), beside its limit and RSS
    const memory = h.STORE.db && (await h.STORE.db.command({ zgwMemory: 1, gc: true }).catch(() => undefined));
    const storeMemory = memory && {
      liveHeapMb: Math.round(memory.heapUsedBytes / 1048576), heapMaxMb: Math.round(memory.heapMaxBytes / 1048576),
      rssMb: memory.residentBytes === undefined ? null : Math.round(memory.residentBytes / 1048576),
    };
    if (storeMemory) console.log(`documents: the store holds ${storeMemory.liveHeapMb} MB live of the ${storeMemory.heapMaxMb} MB its heap may use, RSS ${storeMemory.rssMb} MB`);

    const paths = [...made.paths, ...loaded.map((u) => `${EIO}/${u}`)];
    const pid = api.pid;
    const results = [];
    const content = randomBytes(10 * 1024).toString('base64');
    let n = documents;
    let created = 0;
    const deepPage = Math.max(2, Math.min(10_000, Math.floor(documents / 100)));
    // The first request for the deep page without a continuation walks there once (sort keys only), remembering
    // page boundaries; later requests seek from the nearest one. That first walk is reported on its own.
    let firstDeep;
    if (`GET ${EIO} (page ${deepPage})`.includes(h.ONLY)) {
      const t0 = Date.now();
      const res = await h.call('GET', `${api.base}${EIO}?page=${deepPage}`);
      firstDeep = { page: deepPage, status: res.status, ms: Date.now() - t0 };
      console.log(`  GET ${EIO}?page=${deepPage}, the first time (walks there): ${res.status} in ${firstDeep.ms} ms`);
    }
    // JIT and connection warm-up of the read paths (not reported).
    await new Promise((resolve, reject) => autocannon({ duration: 3, connections: 16, headers: h.headers, url: api.base, requests: h.randomOf(paths) }, (e) => (e ? reject(e) : resolve())));
    for (const connections of [1, 16]) {
      const create = await h.measure(`POST ${EIO} (10 KB content, event published)`, connections, {
        pid,
        url: `${api.base}${EIO}`,
        requests: [{
          method: 'POST',
          setupRequest: (req) => {
            req.headers = { ...h.headers };
            req.body = JSON.stringify(eioBody(iot, n++, content));
            return req;
          },
        }],
        settle: async () => {
          const waiting = await outboxWaiting();
          const lagMs = await h.drained(outboxWaiting);
          return { outboxWaitingAtEnd: waiting, relayLagMs: lagMs };
        },
      });
      if (create) created += create['2xx'];
      results.push(create);
      results.push(await h.measure(`GET ${EIO}/{uuid}/download`, connections, { pid, url: api.base, requests: h.randomOf(paths.map((p) => `${p}/download`)) }));
      results.push(await h.measure(`GET ${EIO}/{uuid}`, connections, { pid, url: api.base, requests: h.randomOf(paths) }));
      results.push(await h.measure(`GET ${EIO} (page 1)`, connections, { pid, url: `${api.base}${EIO}`, timeout: 600 }));
      results.push(await h.measure(`GET ${EIO} (page ${deepPage})`, connections, { pid, url: `${api.base}${EIO}?page=${deepPage}`, timeout: 600 }));
    }
    return {
      documents, viaApi: first, bulkLoaded: rest, apiSeconds: made.seconds, loadSeconds, seconds: h.SECONDS, created, deepPage, firstDeep,
      storeMemory: storeMemory ?? null,
      results: results.filter(Boolean),
    };
  } finally {
    await h.stopApi(api);
  }
}

// ---------------------------------------------------------------- documents-large

/** `size` bytes of random content in 1 MiB pieces, made as they are read (never held whole). */
function* generated(size) {
  for (let sent = 0; sent < size; ) {
    const n = Math.min(MB, size - sent);
    sent += n;
    yield randomBytes(n);
  }
}

/** PUT of one bestandsdeel as multipart/form-data (lock, inhoud), the content streamed from `source`. */
function putDeel(h, url, lock, size, source) {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="lock"\r\n\r\n${lock}\r\n`
    + `--${boundary}\r\nContent-Disposition: form-data; name="inhoud"; filename="deel"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'PUT',
      headers: { authorization: h.headers.authorization, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    (async () => {
      const write = (b) => (req.write(b) ? undefined : new Promise((r) => req.once('drain', r)));
      await write(head);
      for (let sent = 0; sent < size; ) {
        const { value, done } = source.next();
        if (done) throw new Error('the content ran out');
        const piece = value.length > size - sent ? value.subarray(0, size - sent) : value;
        sent += piece.length;
        await write(piece);
      }
      req.end(tail);
    })().catch((err) => req.destroy(err));
  });
}

/** Uploads one large document in its bestandsdelen (content generated, its SHA-256 taken); returns it and the digest. */
async function uploadLarge(h, base, iot, bytes, n) {
  const eio = await h.post(`${base}${EIO}`, { ...eioBody(iot, `groot-${n}`, null), bestandsnaam: `groot-${n}.bin`, formaat: 'application/octet-stream', bestandsomvang: bytes });
  const expected = createHash('sha256');
  const source = (function* tee() {
    for (const piece of generated(bytes)) {
      expected.update(piece);
      yield piece;
    }
  })();
  for (const deel of eio.bestandsdelen) {
    const res = await putDeel(h, deel.url, eio.lock, deel.omvang, source);
    if (res.status !== 200) throw new Error(`PUT ${deel.url}: ${res.status} ${res.text.slice(0, 300)}`);
  }
  const unlock = await h.call('POST', `${eio.url}/unlock`, { lock: eio.lock });
  if (unlock.status !== 204) throw new Error(`unlock: ${unlock.status} ${unlock.text.slice(0, 300)}`);
  return { eio, digest: expected.digest('hex') };
}

/** Downloads a document, hashing it on the way (nothing kept). */
function downloadLarge(h, url) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    let size = 0;
    http.get(`${url}/download`, { headers: { authorization: h.headers.authorization } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`download: ${res.statusCode}`));
      res.on('data', (c) => { size += c.length; hash.update(c); });
      res.on('end', () => resolve({ size, digest: hash.digest('hex') }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * `parallel` documents of `bytes` each, uploaded in bestandsdelen at the same time and then downloaded at the same
 * time, with the content in `store` (gridfs or s3; `env` carries the S3 settings); the API's RSS sampled during both.
 */
async function largeSuite(h, db, { bytes, parallel = 1, store = 'gridfs', env = {} }) {
  const spool = path.join(tmpdir(), `zgw-bench-spool-${Date.now()}`);
  const api = h.startApi(h.PORT, db, { AUDIT_SPOOL_DIR: spool, INHOUD_STORE: store, ...env });
  try {
    await h.up(api.base);
    const iot = await informatieobjecttype(h, api.base);
    // Settle the fresh process (JIT, connections) with a few small documents before the baseline.
    for (let i = 0; i < 20; i++) await h.post(`${api.base}${EIO}`, eioBody(iot, i, Buffer.from(`klein ${i}`).toString('base64')));
    await new Promise((r) => setTimeout(r, 1000));
    const baseline = rss(api.pid);
    const label = `documents-large (${store}, ${parallel} at a time)`;
    console.log(`${label}: ${parallel} x ${mb(bytes)} MiB in bestandsdelen; API RSS before: ${mb(baseline)} MB`);
    const upload = await sampled(api.pid, async () => {
      const t0 = Date.now();
      const docs = await Promise.all(Array.from({ length: parallel }, (_, n) => uploadLarge(h, api.base, iot, bytes, n)));
      return { seconds: (Date.now() - t0) / 1000, docs };
    });
    const total = bytes * parallel;
    console.log(`${label}: uploaded in ${upload.result.seconds.toFixed(1)} s (${Math.round(total / MB / upload.result.seconds)} MiB/s); max API RSS ${mb(upload.maxRss)} MB (+${mb(upload.maxRss - baseline)} MB)`);
    const download = await sampled(api.pid, async () => {
      const t0 = Date.now();
      const got = await Promise.all(upload.result.docs.map((d) => downloadLarge(h, d.eio.url)));
      return { seconds: (Date.now() - t0) / 1000, got };
    });
    const same = download.result.got.every((g, i) => g.size === bytes && g.digest === upload.result.docs[i].digest);
    console.log(`${label}: downloaded in ${download.result.seconds.toFixed(1)} s (${Math.round(total / MB / download.result.seconds)} MiB/s), ${same ? 'the same content' : 'OTHER CONTENT'}; max API RSS ${mb(download.maxRss)} MB (+${mb(download.maxRss - baseline)} MB)`);
    if (!same) throw new Error('a download is not the uploaded content');
    return {
      bytes, parallel, store, bestandsdelen: upload.result.docs[0].eio.bestandsdelen.length, baselineRssMb: mb(baseline),
      upload: { seconds: upload.result.seconds, maxRssMb: mb(upload.maxRss), rssGrowthMb: mb(upload.maxRss - baseline) },
      download: { seconds: download.result.seconds, maxRssMb: mb(download.maxRss), rssGrowthMb: mb(download.maxRss - baseline) },
      results: [],
    };
  } finally {
    await h.stopApi(api);
  }
}

module.exports = { documentsSuite, largeSuite };
