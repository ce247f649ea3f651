#!/usr/bin/env node
// After `npm test`: every message the tests caused on every topic of the broker (those written since `--since <ms>`)
// is checked against the AsyncAPI document the API serves (services/api/src/reference/asyncapi.ts): its topic is a
// channel of the document (after any prefix), its payload valid against the channel's message schema, its headers
// (the CloudEvents attributes) against the message's headers schema. Prints `asyncapi-contract: N passed, N failed`
// (N = messages) and the first failures; exits 1 on any. Topics named `foreign-...` hold what tests publish as another
// producer would (services/audit/test/world.ts) and are left out.
const Ajv = require('ajv');
const addFormats = require('ajv-formats');
const { createKafka, loadConfig } = require('../shared/dist');
const { asyncApiDocument } = require('../services/api/dist/reference/asyncapi');

const arg = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

(async () => {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) {
    console.log('asyncapi-contract: not run (no KAFKA_BROKERS)');
    return;
  }
  const since = Number(arg('--since') ?? 0);
  // (with the organisations' own topics: a test may publish on them)
  const doc = asyncApiDocument(loadConfig({ ...process.env, KAFKA_TOPIC_PREFIX: '', KAFKA_TENANT_TOPICS: 'true' }));
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ components: doc.components }, 'asyncapi');
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const channels = Object.entries(doc.channels).map(([name, c]) => {
    const message = doc.components.messages[c.messages[Object.keys(c.messages)[0]].$ref.split('/').pop()];
    return {
      name,
      // the address after a prefix ending in '-' (or none); a parameter ({kanaal}) stands for any name
      address: new RegExp(`(^|-)${escape(c.address).replace(/\\\{[a-z]+\\\}/g, '.+')}$`),
      parameterised: Boolean(c.parameters),
      payload: ajv.compile({ $ref: `asyncapi${message.payload.$ref}` }),
      headers: ajv.compile(message.headers),
    };
  });
  // a channel of a fixed address first, else one with a parameter
  const channelOf = (topic) => channels.filter((c) => c.address.test(topic)).sort((a, b) => a.parameterised - b.parameterised)[0];

  const kafka = createKafka(brokers, 'asyncapi-check');
  const admin = kafka.admin();
  await admin.connect();
  const failures = [];
  let passed = 0;
  const fail = (what) => failures.push(what);
  try {
    // Kafka's own topics, and those of the tests' stand-ins for other producers (prefix `foreign-`), are not the platform's.
    const topics = (await admin.listTopics()).filter((t) => !t.startsWith('__') && !t.startsWith('foreign-'));
    const wanted = new Map(); // topic -> partition -> [from, to)
    for (const topic of topics) {
      const ends = await admin.fetchTopicOffsets(topic);
      const starts = since ? await admin.fetchTopicOffsetsByTimestamp(topic, since) : ends.map((e) => ({ partition: e.partition, offset: e.low }));
      const ranges = new Map();
      for (const e of ends) {
        const from = Number(starts.find((s) => s.partition === e.partition)?.offset ?? e.high);
        const start = from < 0 ? Number(e.high) : Math.max(from, Number(e.low));
        if (start < Number(e.high)) ranges.set(e.partition, [start, Number(e.high)]);
      }
      if (!ranges.size) continue;
      if (!channelOf(topic)) {
        fail(`topic ${topic}: not a channel of the AsyncAPI document`);
        continue;
      }
      wanted.set(topic, ranges);
    }
    if (wanted.size) {
      const consumer = kafka.consumer({ groupId: `asyncapi-check-${Date.now()}` });
      await consumer.connect();
      await consumer.subscribe({ topics: [...wanted.keys()], fromBeginning: true });
      let open = [...wanted.values()].reduce((n, r) => n + r.size, 0);
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`messages still unread after 5 minutes (${open} partitions)`)), 300_000);
        consumer
          .run({
            eachBatchAutoResolve: true,
            eachBatch: async ({ batch }) => {
              const range = wanted.get(batch.topic)?.get(batch.partition);
              if (!range) return;
              const channel = channelOf(batch.topic);
              for (const m of batch.messages) {
                const offset = Number(m.offset);
                if (offset < range[0] || offset >= range[1]) continue;
                const where = `${batch.topic}@${batch.partition}:${offset}`;
                const headers = Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString() : String(v)]));
                let payload;
                try {
                  payload = JSON.parse(m.value.toString());
                } catch {
                  fail(`${where}: the value is not JSON`);
                  continue;
                }
                const errors = [];
                if (!channel.payload(payload)) errors.push(`payload ${ajv.errorsText(channel.payload.errors)}`);
                if (!channel.headers(headers)) errors.push(`headers ${ajv.errorsText(channel.headers.errors)}`);
                if (headers.ce_id !== headers['event-id']) errors.push('headers ce_id differs from event-id');
                if (errors.length) fail(`${where}: ${errors.join('; ')}`);
                else passed++;
              }
              const last = Number(batch.lastOffset());
              if (last >= range[1] - 1 && !range.done) {
                range.done = true;
                if (--open === 0) {
                  clearTimeout(timer);
                  resolve();
                }
              }
            },
          })
          .catch(reject);
      });
      await consumer.disconnect();
    }
  } finally {
    await admin.disconnect();
  }
  console.log(`asyncapi-contract: ${passed} passed, ${failures.length} failed`);
  for (const f of failures.slice(0, 20)) console.log(`  ${f}`);
  if (failures.length) process.exitCode = 1;
})().catch((err) => {
  console.log(`asyncapi-contract: 0 passed, 1 failed (${err.message})`);
  process.exitCode = 1;
});
