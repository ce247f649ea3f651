// The notifier suite of scripts/bench.js: deliveries per second from N events (default 10,000) to R local receivers
// (default 100), each with an abonnement on every event; one receiver answers only after --slow-ms (default 5,000).
//
// The API (for the abonnementen) and services/notifier run as their own processes, as in production; the events are
// put on the kanaal's Kafka topic the way the outbox relay does (the notification as JSON, its id in `event-id`),
// so the figure is the notifier's: from the first event on Kafka until every fast receiver has every event.
// BENCH_NOTIFIER_ARGS: node options for the notifier (e.g. --cpu-prof).
// Reported: deliveries/s to the fast receivers, how long recording all deliveries took (the consumer group's commit),
// what the slow receiver got meanwhile, repeats per receiver (none expected), the notifier's CPU time and peak RSS.
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { createKafka } = require('../../shared/dist');

const root = path.join(__dirname, '..', '..');
const ORG = '002220647';

function procStats(pid, ticks) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { cpu: (Number(f[11]) + Number(f[12])) / ticks, rssMb: m ? Math.round(Number(m[1]) / 1024) : 0 };
  } catch {
    return { cpu: 0, rssMb: 0 };
  }
}

/** R receivers on 127.0.0.1; receiver 0 answers after `slowMs`. Each counts requests and distinct notification ids. */
async function startReceivers(count, slowMs) {
  const rs = [];
  for (let i = 0; i < count; i++) {
    const r = { received: 0, ids: new Set(), url: '' };
    r.server = http.createServer((req, res) => {
      const id = req.headers['x-notificatie-id'];
      req.resume();
      req.on('end', () => {
        if (id) {
          r.received++;
          r.ids.add(id);
        }
        if (i === 0 && id) setTimeout(() => res.writeHead(204).end(), slowMs);
        else res.writeHead(204).end();
      });
    });
    r.server.keepAliveTimeout = 60_000;
    await new Promise((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${r.server.address().port}/callback`;
    rs.push(r);
  }
  return rs;
}

async function notifierSuite(h, db, { events, receivers, slowMs, ticks }) {
  const prefix = `bench-nrc-${Date.now()}-`;
  const api = h.startApi(h.PORT, db, { KAFKA_TOPIC_PREFIX: prefix });
  const rs = await startReceivers(receivers, slowMs);
  let notifier;
  const kafka = createKafka(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092', 'zgw-bench-nrc');
  const admin = kafka.admin();
  try {
    await h.up(api.base);
    console.log(`notifier: ${receivers} abonnementen (the callback check of the slow one takes ${slowMs} ms)`);
    await Promise.all(rs.map((r, i) => h.post(`${api.base}/notificaties/api/v1/abonnement`, { callbackUrl: r.url, auth: `Bearer receiver-${i}`, kanalen: [{ naam: 'zaken', filters: { bronorganisatie: ORG } }] })));
    // The callback checks of the abonnementen are not deliveries.
    for (const r of rs) {
      r.received = 0;
      r.ids.clear();
    }

    notifier = spawn(process.execPath, [...(process.env.BENCH_NOTIFIER_ARGS ?? '').split(' ').filter(Boolean), 'services/notifier/dist/main.js'], {
      cwd: root, stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, MONGODB_DB: db, KAFKA_TOPIC_PREFIX: prefix, LOG_LEVEL: 'warn' },
    });
    await admin.connect();
    const group = `${prefix}zgw-notifier`;
    for (let i = 0; ; i++) {
      const { groups } = await admin.describeGroups([group]);
      if (groups[0]?.state === 'Stable') break;
      if (i > 120) throw new Error('the notifier did not join its consumer group');
      await new Promise((r) => setTimeout(r, 500));
    }

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const topic = `${prefix}zaken`;
    const started = Date.now();
    const base = procStats(notifier.pid, ticks);
    let peakRss = base.rssMb;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, procStats(notifier.pid, ticks).rssMb)), 500);
    for (let i = 0; i < events; i += 1000) {
      const messages = [];
      for (let j = i; j < Math.min(events, i + 1000); j++) {
        const url = `https://bench.example/zaken/api/v1/zaken/${randomUUID()}`;
        const n = { kanaal: 'zaken', hoofdObject: url, resource: 'zaak', resourceUrl: url, actie: 'create', aanmaakdatum: new Date().toISOString(), kenmerken: { bronorganisatie: ORG, zaaktype: 'https://bench.example/zaaktypen/1', vertrouwelijkheidaanduiding: 'openbaar' } };
        messages.push({ key: url, value: JSON.stringify(n), headers: { 'event-id': randomUUID() } });
      }
      await producer.send({ topic, acks: -1, messages });
    }
    await producer.disconnect();
    const published = Date.now();

    const fast = rs.slice(1);
    let recordedAt;
    let last = { at: started, n: 0 };
    for (;;) {
      const now = Date.now();
      const n = fast.reduce((s, r) => s + r.received, 0);
      if (!recordedAt) {
        const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
        if (Number(offsets?.partitions[0]?.offset ?? -1) >= events) recordedAt = now;
      }
      if (now - last.at >= 5000) {
        console.log(`  ${n}/${fast.length * events} delivered to the fast receivers (${Math.round((n - last.n) / ((now - last.at) / 1000))}/s now); slow receiver: ${rs[0].received}`);
        last = { at: now, n };
      }
      if (fast.every((r) => r.received >= events)) break;
      if (now - started > 30 * 60_000) throw new Error('not every delivery arrived within 30 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const done = Date.now();
    clearInterval(sampler);
    const end = procStats(notifier.pid, ticks);
    const deliveries = fast.length * events;
    const seconds = (done - started) / 1000;
    const repeats = fast.reduce((s, r) => s + (r.received - r.ids.size), 0);
    const result = {
      events, receivers, slowMs, deliveries, seconds: Number(seconds.toFixed(1)),
      deliveriesPerSecond: Math.round(deliveries / seconds),
      publishSeconds: Number(((published - started) / 1000).toFixed(1)),
      recordedSeconds: recordedAt ? Number(((recordedAt - started) / 1000).toFixed(1)) : null,
      slowReceiverGot: rs[0].received,
      repeatsAtFastReceivers: repeats,
      notifierCpuSeconds: Number((end.cpu - base.cpu).toFixed(1)),
      notifierCpuMsPerDelivery: Number((((end.cpu - base.cpu) * 1000) / (deliveries + rs[0].received)).toFixed(3)),
      notifierPeakRssMb: peakRss,
    };
    console.log(`notifier: ${deliveries} deliveries to ${fast.length} receivers in ${result.seconds} s = ${result.deliveriesPerSecond}/s; all recorded after ${result.recordedSeconds} s; `
      + `slow receiver (${slowMs} ms per answer) got ${result.slowReceiverGot} meanwhile; ${repeats} repeats; notifier CPU ${result.notifierCpuSeconds} s `
      + `(${result.notifierCpuMsPerDelivery} ms/delivery), peak RSS ${peakRss} MB`);
    return { results: [], notifier: result };
  } finally {
    await admin.disconnect().catch(() => undefined);
    if (notifier && notifier.exitCode === null) {
      await new Promise((resolve) => {
        notifier.once('exit', resolve);
        notifier.kill('SIGTERM');
      });
    }
    await h.stopApi(api);
    for (const r of rs) {
      r.server.closeAllConnections();
      r.server.close();
    }
  }
}

module.exports = { notifierSuite };
