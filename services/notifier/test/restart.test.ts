import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EVENT_ID_HEADER, NRC_DELIVERIES, type DeliveryDoc } from '@zgw/shared';
import { intakeHandler, type BatchPayload } from '../src/intake';
import { countIds, Receiver, Receivers } from './receivers';
import { NRC, eventually, receivedAtLeast, silent, urlsOf, world, type World } from './world';

// What at-least-once means here, tested as claimed:
// - a delivery whose attempt the notifier wrote (the receiver answered, the result is in MongoDB) is never sent again;
// - a stop lets the attempts in flight finish and writes them first, so a restart sends nothing twice;
// - a crash (kill -9) between sending and writing the result sends that delivery again after the restart (or the
//   takeover by a standby), with the same notification id (the receiver drops the repeat); nothing is lost;
// - Kafka messages consumed again after a crash before the commit record nothing twice.
// And a receiver that does not answer holds only its own abonnement's slots.
let w: World;
const receivers = new Receivers();
const receiver = () => receivers.start();

beforeAll(async () => {
  w = await world({ NRC_ABONNEMENT_CONCURRENCY: '4' });
  w.clock.t = Date.now();
});
afterAll(async () => {
  await w?.close();
  await receivers.closeAll();
});

describe('a slow receiver', () => {
  it('holds only its own slots: the others receive everything meanwhile', async () => {
    const org = randomUUID().slice(0, 9);
    const slow = await receiver();
    const fast = [await receiver(), await receiver(), await receiver()];
    for (const r of [slow, ...fast]) await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    slow.behaviour = 'hold';
    const published: string[] = [];
    for (let i = 0; i < 20; i++) published.push(await w.publish({ bronorganisatie: org }));
    for (const r of fast) expect(await receivedAtLeast(r, 20)).toBe(true);
    await slow.untilHolding(4);
    // Its four slots are taken, nothing more is started for it, and everyone else has everything.
    expect(slow.ids()).toHaveLength(4);
    for (const r of fast) expect(urlsOf(r).sort()).toEqual([...published].sort());
    slow.release();
    expect(await receivedAtLeast(slow, 20)).toBe(true);
    await w.notifier.deliverer.settle();
    expect(urlsOf(slow).sort()).toEqual([...published].sort());
  });
});

describe('restarts', () => {
  it('a stop mid-delivery waits for the attempts in flight and writes them: after the restart nothing is sent twice or lost', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    r.behaviour = 'hold';
    for (let i = 0; i < 3; i++) await w.publish({ bronorganisatie: org });
    await r.untilHolding(3);
    const stopping = w.notifier.stop();
    r.release();
    await stopping;
    await w.startNotifier();
    const after = await w.publish({ bronorganisatie: org });
    expect(await eventually(async () => urlsOf(r).includes(after))).toBe(true);
    await w.notifier.deliverer.settle();
    expect(r.ids()).toHaveLength(4);
    expect([...countIds(r.ids()).values()]).toEqual([1, 1, 1, 1]);
    const ds = await w.t.mongo.db
      .collection<DeliveryDoc>(NRC_DELIVERIES)
      .find({ abonnement: url.slice(url.lastIndexOf('/') + 1) })
      .toArray();
    expect(ds.map((d) => [d.state, d.tries])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
    ]);
  });

  it('a crash mid-delivery (kill -9): a standby takes over once the lease has gone unrenewed for the lease time and sends the unwritten attempts again, with the same ids; nothing else twice, nothing lost', async () => {
    await w.notifier.stop();
    const child = startChild();
    try {
      const org = randomUUID().slice(0, 9);
      const warm = await receiver();
      const r = await receiver();
      await createAbonnement(warm, org);
      await createAbonnement(r, `${org}-k`);
      // The process consumes once an earlier notification has gone through it.
      await w.publish({ bronorganisatie: org });
      expect(await receivedAtLeast(warm, 1, 60_000)).toBe(true);
      // A second instance, here, stands by: the process holds the lease.
      await w.startNotifier();
      expect(w.notifier.lease.holding).toBe(false);
      r.behaviour = 'hold';
      await w.publish({ bronorganisatie: `${org}-k` });
      await w.publish({ bronorganisatie: `${org}-k` });
      await r.untilHolding(2);
      const firstIds = r.ids();
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      r.release();
      // The deliveries the process recorded are due by this instance's clock.
      w.clock.t = Date.now();

      // The lease stays the killed process's until it has gone unrenewed for its lease time (the process's 60 s,
      // which the lease document carries) on this instance's clock, counted from the last renewal it read.
      await w.notifier.lease.tick();
      w.leaseClock.advance(59_999);
      await w.notifier.lease.tick();
      expect(w.notifier.lease.holding).toBe(false);
      w.leaseClock.advance(1);
      await w.notifier.lease.tick();
      expect(w.notifier.lease.holding).toBe(true);
      await w.notifier.whenActive();
      const after = await w.publish({ bronorganisatie: `${org}-k` });
      expect(await eventually(async () => urlsOf(r).includes(after) && r.ids().length >= 5)).toBe(true);
      await w.notifier.deliverer.settle();
      const seen = countIds(r.ids());
      // The two that were in flight came twice (same id), the one published after the takeover once.
      expect(firstIds).toHaveLength(2);
      for (const id of firstIds) expect(seen.get(id)).toBe(2);
      expect(seen.size).toBe(3);
      expect(r.ids()).toHaveLength(5);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('Kafka messages consumed again (a crash before the commit) record each delivery once; the offset is committed only once they are stored', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const messages = ids.map((id, i) => ({
      offset: String(i),
      timestamp: String(Date.now()),
      headers: { [EVENT_ID_HEADER]: Buffer.from(id) },
      value: Buffer.from(
        JSON.stringify({
          kanaal: 'zaken',
          hoofdObject: `https://example.com/z/${id}`,
          resource: 'zaak',
          resourceUrl: `https://example.com/z/${id}`,
          actie: 'create',
          aanmaakdatum: new Date().toISOString(),
          kenmerken: { bronorganisatie: org },
        }),
      ),
    }));
    const stored = () => w.t.mongo.db.collection<DeliveryDoc>(NRC_DELIVERIES).countDocuments({ abonnement: url.slice(url.lastIndexOf('/') + 1) });
    const commits: number[] = [];
    const handle = intakeHandler({
      db: w.t.mongo.db,
      defaultTenant: w.t.config.ZGW_DEFAULT_TENANT,
      registry: w.notifier.registry,
      deliverer: w.notifier.deliverer,
      clock: w.clock,
      log: silent,
    });
    const batch = (): BatchPayload => ({
      batch: { topic: `${w.t.topicPrefix}zaken`, partition: 0, messages },
      resolveOffset: () => undefined,
      heartbeat: async () => undefined,
      commitOffsetsIfNecessary: async () => {
        commits.push(await stored());
      },
      uncommittedOffsets: () => ({ topics: [] }),
      isRunning: () => true,
      isStale: () => false,
    });
    await handle(batch());
    await handle(batch());
    expect(commits).toEqual([3, 3]);
    expect(await receivedAtLeast(r, 3)).toBe(true);
    await w.notifier.deliverer.settle();
    expect(r.ids().sort()).toEqual([...ids].sort());
    expect(await stored()).toBe(3);
  });
});

async function createAbonnement(r: Receiver, org: string): Promise<void> {
  const res = await w.t.call('POST', `${NRC}/abonnement`, {
    callbackUrl: r.url,
    auth: 'Bearer k',
    kanalen: [{ naam: 'zaken', filters: { bronorganisatie: org } }],
  });
  expect(res.statusCode).toBe(201);
}

/** The notifier as its own process (the built service), on the test's database and topics. */
function startChild(): ChildProcess {
  const c = w.config();
  return spawn(process.execPath, [join(__dirname, '..', 'dist', 'main.js')], {
    env: {
      ...process.env,
      MONGODB_DB: c.MONGODB_DB,
      KAFKA_TOPIC_PREFIX: c.KAFKA_TOPIC_PREFIX,
      LOG_LEVEL: 'silent',
      NRC_REFRESH_MS: '300',
      NRC_DELIVERY_TIMEOUT_MS: '30000',
      NRC_LEASE_SECONDS: '60',
      NOTIFIER_METRICS_PORT: '0',
    },
    stdio: 'ignore',
  });
}
