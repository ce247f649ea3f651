import { randomUUID } from 'node:crypto';
import { createKafka, KafkaProbe, KANALEN, Registry, topicName } from '@zgw/shared';
import { parseExposition, total } from '../../api/test/metrics.helpers';
import { registerNotifierMetrics } from '../src/metrics';
import { groupId } from '../src/worker';
import { Receivers } from './receivers';
import { eventually, receivedAtLeast, silent, world, type World } from './world';

// The notifier's metrics as its port serves them, read from a notifier at work on the real engines.
let w: World;
let probe: KafkaProbe;
const registry = new Registry();
const receivers = new Receivers();

beforeAll(async () => {
  w = await world();
  probe = new KafkaProbe(createKafka(w.t.config.KAFKA_BROKERS, 'test-notifier-metrics'));
  const prefix = w.t.topicPrefix;
  registerNotifierMetrics(registry, () => w.notifier, { probe, group: groupId(prefix), topics: KANALEN.map((k) => topicName(prefix, k)) }, silent);
});
afterAll(async () => {
  await probe?.stop();
  await w?.close();
  await receivers.closeAll();
});

const scrape = async () => parseExposition(await registry.metrics());

test('deliveries by result, failing abonnementen, pending by receiver, the lease and the consumer lag', async () => {
  const org = randomUUID().slice(0, 9);
  const [good, bad] = [await receivers.start(), await receivers.start()];
  await w.abonnement(good, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
  await w.abonnement(bad, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
  bad.behaviour = { status: 500 };
  const before = await scrape();
  for (let i = 0; i < 3; i++) await w.publish({ bronorganisatie: org });
  expect(await receivedAtLeast(good, 3)).toBe(true);
  expect(await eventually(async () => total(await scrape(), 'zgw_notifier_abonnementen_failing') >= 1)).toBe(true);
  const after = await scrape();

  const delivered = (s: typeof after) => total(s, 'zgw_notifier_deliveries_total', { result: 'delivered' });
  const failed = (s: typeof after) => total(s, 'zgw_notifier_deliveries_total', { result: 'failed' });
  expect(delivered(after) - delivered(before)).toBeGreaterThanOrEqual(3);
  expect(failed(after) - failed(before)).toBeGreaterThanOrEqual(1);
  expect(total(after, 'zgw_notifier_lease_held')).toBe(1);
  expect(total(after, 'zgw_notifier_abonnementen_locked')).toBe(0);
  // the failing receiver's deliveries wait (its first attempt failed; the next comes after the backoff)
  expect(total(after, 'zgw_notifier_deliveries_pending', { receiver: new URL(bad.url).origin })).toBeGreaterThanOrEqual(1);
  // one sample per kanaal topic of this prefix: the group has read everything published so far
  const lag = after.filter((s) => s.name === 'zgw_kafka_consumer_lag' && s.labels.group === groupId(w.t.topicPrefix));
  expect(lag.map((s) => s.labels.topic).sort()).toEqual(KANALEN.map((k) => topicName(w.t.topicPrefix, k)).sort());
  expect(await eventually(async () => total(await scrape(), 'zgw_kafka_consumer_lag', { group: groupId(w.t.topicPrefix) }) === 0)).toBe(true);
  // default process metrics are the process's own, not registered here; the lane gauges have no id in a label
  for (const s of after) expect(Object.values(s.labels).join(' ')).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
});

test('a standby reports the lease as not held and no failing or locked abonnementen (the holder reports them)', async () => {
  const standby = new Registry();
  registerNotifierMetrics(
    standby,
    () => ({ active: false, lease: { holding: false }, deliverer: { allLanes: () => [] } }),
    { probe, group: 'none', topics: [] },
    silent,
  );
  const s = parseExposition(await standby.metrics());
  expect(total(s, 'zgw_notifier_lease_held')).toBe(0);
  expect(total(s, 'zgw_notifier_abonnementen_failing')).toBe(0);
  expect(s.some((x) => x.name === 'zgw_notifier_deliveries_pending')).toBe(false);
});
