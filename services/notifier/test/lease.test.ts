import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { NRC_DELIVERIES, NRC_LEASES, NRC_NOTIFICATIES, deliveryId, type DeliveryDoc, type KeptNotificatie, type LeaseDoc } from '@zgw/shared';
import { startNotifier, type Notifier } from '../src/worker';
import { countIds, ManualClock, Receivers } from './receivers';
import { eventually, receivedAtLeast, silent, urlsOf, uuidOf, world, type World } from './world';

// Several notifier instances on one installation: only the one holding the lease delivers. Each instance measures
// the lease on a clock of its own that the test moves, so nothing waits for the lease time.
const LEASE_MS = 30_000;
const TIMEOUT_MS = 5_000;
let w: World;
const receivers = new Receivers();
const running: Notifier[] = [];
const receiver = () => receivers.start();

/** Starts an instance on the test's database and topics (MongoDB through `mongoUrl` if given), with its own lease clock. */
async function instance(mongoUrl?: string): Promise<{ n: Notifier; clock: ManualClock }> {
  const clock = new ManualClock(0);
  const config = { ...w.config(), ...(mongoUrl ? { MONGODB_URL: mongoUrl } : {}) };
  const n = await startNotifier(config, silent, { clock: w.clock, leaseClock: clock });
  running.push(n);
  return { n, clock };
}

const lease = () => w.t.mongo.db.collection<LeaseDoc>(NRC_LEASES).findOne({ _id: 'notifier' });

beforeAll(async () => {
  w = await world({ NRC_ABONNEMENT_CONCURRENCY: '2', NRC_DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS), NRC_LEASE_SECONDS: String(LEASE_MS / 1000) });
  w.clock.t = Date.now();
  // The tests start their own instances.
  await w.notifier.stop();
});
afterEach(async () => {
  for (const n of running.splice(0)) await n.stop();
});
afterAll(async () => {
  await w?.t.close();
  await receivers.closeAll();
});

describe('two instances', () => {
  it('started together: one takes the lease and delivers, each pending delivery once; the other stands by while the lease is renewed', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    const res = await w.t.call('POST', '/notificaties/api/v1/abonnement', {
      callbackUrl: r.url,
      auth: 'Bearer k',
      kanalen: [{ naam: 'zaken', filters: { bronorganisatie: org } }],
    });
    expect(res.statusCode).toBe(201);
    const abonnement = uuidOf(res.json().url);
    // Deliveries recorded while no instance ran: every instance that delivers loads them at its start.
    const at = new Date(w.clock.now());
    const ids = Array.from({ length: 5 }, () => randomUUID());
    await w.t.mongo.db.collection<KeptNotificatie>(NRC_NOTIFICATIES).insertMany(
      ids.map((id) => ({
        _id: id,
        kanaal: 'zaken',
        receivedAt: at,
        message: {
          kanaal: 'zaken',
          hoofdObject: `https://example.com/z/${id}`,
          resource: 'zaak',
          resourceUrl: `https://example.com/z/${id}`,
          actie: 'create',
          aanmaakdatum: at.toISOString(),
          kenmerken: { bronorganisatie: org },
        },
      })),
    );
    await w.t.mongo.db.collection<DeliveryDoc>(NRC_DELIVERIES).insertMany(
      ids.map((id) => ({
        _id: deliveryId(abonnement, id),
        abonnement,
        notificatie: id,
        kanaal: 'zaken',
        state: 'pending' as const,
        createdAt: at,
        nextAt: at,
        tries: 0,
        attempts: [],
      })),
    );

    const [a, b] = await Promise.all([instance(), instance()]);
    expect([a.n.active, b.n.active].filter(Boolean)).toHaveLength(1);
    const [holder, standby] = a.n.active ? [a, b] : [b, a];
    expect(standby.n.lease.holding).toBe(false);
    expect(() => standby.n.deliverer).toThrow(/does not hold the lease/);
    expect((await lease())!.owner).toBe(holder.n.lease.owner);

    expect(await receivedAtLeast(r, 5)).toBe(true);
    await holder.n.deliverer.settle();
    w.notifier = holder.n;
    const published = [await w.publish({ bronorganisatie: org }), await w.publish({ bronorganisatie: org })];
    expect(await eventually(async () => published.every((u) => urlsOf(r).includes(u)))).toBe(true);
    await holder.n.deliverer.settle();
    expect(r.ids()).toHaveLength(7);
    expect([...countIds(r.ids()).values()].every((c) => c === 1)).toBe(true);
    expect(r.ids().slice(0, 5).sort()).toEqual([...ids].sort());

    // A renewal in between: the standby counts the lease time from the renewal it saw last, so it waits.
    await standby.n.lease.tick();
    holder.clock.advance(LEASE_MS / 3);
    await holder.n.lease.tick();
    expect((await lease())!.renewals).toBe(1);
    standby.clock.advance(LEASE_MS);
    await standby.n.lease.tick();
    expect(standby.n.lease.holding).toBe(false);
    expect(holder.n.lease.holding).toBe(true);
    expect((await lease())!.owner).toBe(holder.n.lease.owner);
  });

  it('a stop releases the lease: the standby takes it at its next read and delivers what was pending, each once', async () => {
    const org = randomUUID().slice(0, 9);
    const holder = await instance();
    const standby = await instance();
    expect(holder.n.active).toBe(true);
    expect(standby.n.active).toBe(false);
    w.notifier = holder.n;
    const r = await receiver();
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    r.behaviour = 'hold';
    for (let i = 0; i < 5; i++) await w.publish({ bronorganisatie: org });
    await r.untilHolding(2);
    expect(await eventually(async () => (await w.deliveries(url)).length === 5)).toBe(true);

    const stopping = holder.n.stop();
    r.release();
    await stopping;
    // The holder finished the two it had started; the other three are pending.
    expect(r.ids()).toHaveLength(2);
    expect((await lease())!.owner).toBeNull();
    // No time passes on the standby's clock: released is free.
    await standby.n.lease.tick();
    await standby.n.whenActive();
    expect(await receivedAtLeast(r, 5)).toBe(true);
    await standby.n.deliverer.settle();
    expect(r.ids()).toHaveLength(5);
    expect([...countIds(r.ids()).values()]).toEqual([1, 1, 1, 1, 1]);
    expect((await w.deliveries(url)).map((d) => [d.state, d.tries])).toEqual(Array(5).fill(['delivered', 1]));
  });
});

describe('a holder that loses MongoDB', () => {
  it('starts nothing that could outlast its term, ends its worker when the term runs out, and the standby takes over and delivers what was pending', async () => {
    const proxy = await Proxy.start(w.config().MONGODB_URL);
    try {
      const org = randomUUID().slice(0, 9);
      const a = await instance(proxy.url);
      const b = await instance();
      expect(a.n.active).toBe(true);
      expect(b.n.active).toBe(false);
      w.notifier = a.n;
      const r = await receiver();
      await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
      r.behaviour = { status: 500 };
      const n1 = await w.publish({ bronorganisatie: org });
      expect(await receivedAtLeast(r, 1)).toBe(true);
      await a.n.deliverer.settle();
      const [first] = r.ids();

      // MongoDB out of A's reach; its term has less left than a delivery may take: the retry, due now, waits.
      proxy.cut();
      a.clock.advance(LEASE_MS - TIMEOUT_MS);
      r.behaviour = { status: 204 };
      w.clock.advance(30_000);
      await a.n.deliverer.settle();
      expect(r.ids()).toEqual([first]);
      expect(a.n.lease.holding).toBe(true);

      // The term runs out: A ends its worker without waiting for MongoDB.
      a.clock.advance(TIMEOUT_MS);
      void a.n.lease.tick();
      expect(a.n.lease.holding).toBe(false);
      expect(await eventually(async () => !a.n.active)).toBe(true);

      // B takes over once the lease has gone unrenewed for the lease time on its clock, not before.
      await b.n.lease.tick();
      b.clock.advance(LEASE_MS - 1);
      await b.n.lease.tick();
      expect(b.n.lease.holding).toBe(false);
      b.clock.advance(1);
      await b.n.lease.tick();
      await b.n.whenActive();
      expect(await receivedAtLeast(r, 2)).toBe(true);
      await b.n.deliverer.settle();
      expect(urlsOf(r)).toEqual([n1, n1]);
      expect(r.ids()).toEqual([first, first]);

      // MongoDB back for A: it stands by, B delivers.
      proxy.heal();
      w.notifier = b.n;
      const n2 = await w.publish({ bronorganisatie: org });
      expect(await eventually(async () => urlsOf(r).includes(n2))).toBe(true);
      await a.n.lease.tick();
      await b.n.deliverer.settle();
      expect(a.n.active).toBe(false);
      expect(urlsOf(r)).toEqual([n1, n1, n2]);
      expect((await lease())!.owner).toBe(b.n.lease.owner);
    } finally {
      proxy.heal();
      for (const n of running.splice(0)) await n.stop();
      await proxy.close();
    }
  });
});

/** A TCP proxy to MongoDB that can be cut (every connection dropped, new ones closed at once) and healed. */
class Proxy {
  private readonly sockets = new Set<Socket>();
  private down = false;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(mongoUrl: string): Promise<Proxy> {
    const target = new URL(mongoUrl);
    let self!: Proxy;
    const server = createServer((client) => {
      if (self.down) return void client.destroy();
      const upstream = connect(Number(target.port || 27017), target.hostname);
      for (const s of [client, upstream]) {
        self.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          self.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    self = new Proxy(server, `mongodb://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
  }

  heal(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
