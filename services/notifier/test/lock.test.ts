import { randomUUID } from 'node:crypto';
import { NRC_NOTIFICATIES } from '@zgw/shared';
import { DAY, HOUR, Receivers } from './receivers';
import { eventually, receivedAtLeast, urlsOf, uuidOf, world, type World } from './world';

// Retries, the one-week lock, unlock and resend, with a clock the test moves (a week passes in milliseconds).
let w: World;
const receivers = new Receivers();
const receiver = () => receivers.start();
const SECOND = 1000;

beforeAll(async () => {
  w = await world();
});
afterAll(async () => {
  await w?.close();
  await receivers.closeAll();
});

/** Moves the clock and lets the notifier do what became due. */
async function pass(ms: number): Promise<void> {
  w.clock.advance(ms);
  await w.notifier.deliverer.settle();
}

describe('retries', () => {
  it('retries a failing receiver after the backoff of its consecutive failures, one attempt at a time, and records each', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    r.behaviour = { status: 500 };
    const first = await w.publish({ bronorganisatie: org });
    expect(await receivedAtLeast(r, 1)).toBe(true);
    await w.notifier.deliverer.settle();
    // The first failure makes the abonnement fail: a notification published now waits for the next attempt.
    const second = await w.publish({ bronorganisatie: org });
    expect(await eventually(async () => (await w.deliveries(url)).length === 2)).toBe(true);
    await w.notifier.deliverer.settle();
    expect(urlsOf(r)).toEqual([first]);
    let s = await w.status(url);
    expect(s).toMatchObject({ state: 'failing', consecutiveFailures: 1, failedAttempts: 1 });
    expect(s!.lastAttempts[0]).toMatchObject({ status: 500, ok: false, error: 'HTTP 500' });
    expect(s!.nextAttemptAt!.getTime()).toBe(w.clock.now() + 30 * SECOND);

    await pass(29 * SECOND);
    expect(r.ids()).toHaveLength(1);
    await pass(1 * SECOND);
    // 30 s after the first failure: one attempt (the second notification, due since it arrived), which fails too.
    expect(urlsOf(r)).toEqual([first, second]);
    s = await w.status(url);
    expect(s).toMatchObject({ state: 'failing', consecutiveFailures: 2 });
    expect(s!.nextAttemptAt!.getTime()).toBe(w.clock.now() + 60 * SECOND);

    r.behaviour = { status: 204 };
    await pass(60 * SECOND);
    // A success ends the failing: everything due goes out again.
    expect(urlsOf(r).slice(2).sort()).toEqual([first, second].sort());
    s = await w.status(url);
    expect(s).toMatchObject({ state: 'active', consecutiveFailures: 0, failingSince: null, delivered: 2, failedAttempts: 2 });
    const ds = await w.deliveries(url);
    expect(ds.map((d) => d.state)).toEqual(['delivered', 'delivered']);
    const d1 = ds.find((d) => d.attempts.length === 2)!;
    expect(d1.attempts.map((a) => a.status)).toEqual([500, 204]);
    expect(d1.attempts.map((a) => a.error)).toEqual(['HTTP 500', null]);
    expect(d1.tries).toBe(2);
  });

  it('records a receiver that does not answer in time, or not at all, as failed attempts without a status', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    r.behaviour = 'close';
    await w.publish({ bronorganisatie: org });
    expect(await receivedAtLeast(r, 1)).toBe(true);
    await w.notifier.deliverer.settle();
    const [d] = await w.deliveries(url);
    expect(d!.attempts[0]).toMatchObject({ status: null, ok: false });
    expect(d!.attempts[0]!.error).toMatch(/fetch failed|socket|ECONNRESET/i);
    await r.close();
    await pass(30 * SECOND);
    const [again] = await w.deliveries(url);
    expect(again!.attempts[1]).toMatchObject({ status: null, ok: false });
    expect(again!.attempts[1]!.error).toMatch(/ECONNREFUSED/);
    expect((await w.t.call('DELETE', url)).statusCode).toBe(204);
  });
});

describe('the one-week lock', () => {
  it('locks an abonnement whose attempts all failed for a week, sends it nothing more, keeps what it misses; unlock resumes; resend delivers what was kept', async () => {
    const org = randomUUID().slice(0, 9);
    const dead = await receiver();
    const healthy = await receiver();
    const deadUrl = await w.abonnement(dead, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    await w.abonnement(healthy, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    dead.behaviour = { status: 503 };

    const n1 = await w.publish({ bronorganisatie: org });
    expect(await receivedAtLeast(dead, 1)).toBe(true);
    expect(await receivedAtLeast(healthy, 1)).toBe(true);
    await w.notifier.deliverer.settle();
    const failingSince = (await w.status(deadUrl))!.failingSince!.getTime();

    // Six days and 23 hours of failures: retried all along, never locked.
    for (let passed = 0; passed < 7 * DAY - HOUR; passed += 6 * HOUR) await pass(Math.min(6 * HOUR, 7 * DAY - HOUR - passed));
    const attempts = dead.ids().length;
    expect(attempts).toBeGreaterThan(10);
    expect(new Set(dead.ids())).toEqual(new Set([dead.ids()[0]]));
    expect((await w.status(deadUrl))!.state).toBe('failing');
    const failing = (await w.admin('GET', `/abonnementen/${uuidOf(deadUrl)}`)).json();
    expect(failing).toMatchObject({
      state: 'failing',
      lockAt: new Date(failingSince + 7 * DAY).toISOString(),
      undelivered: { pending: 1, failed: 0 },
    });

    await pass(HOUR);
    const locked = await w.status(deadUrl);
    expect(locked).toMatchObject({ state: 'locked', lockedAt: new Date(failingSince + 7 * DAY) });
    expect((await w.deliveries(deadUrl)).map((d) => d.state)).toEqual(['failed']);
    const view = (await w.admin('GET', `/abonnementen/${uuidOf(deadUrl)}`)).json();
    expect(view).toMatchObject({ state: 'locked', undelivered: { pending: 0, failed: 1 } });
    expect(view.lastAttempts[0]).toMatchObject({ status: 503, ok: false });

    // Locked: nothing is sent, even once the receiver answers again; what is published is kept for it.
    dead.behaviour = { status: 204 };
    const before = dead.ids().length;
    const n2 = await w.publish({ bronorganisatie: org });
    expect(await eventually(async () => urlsOf(healthy).includes(n2))).toBe(true);
    await pass(DAY);
    expect(dead.ids()).toHaveLength(before);
    expect(await w.t.mongo.db.collection(NRC_NOTIFICATIES).countDocuments({ 'message.resourceUrl': n2 })).toBe(1);
    expect((await w.admin('POST', `/abonnementen/${uuidOf(deadUrl)}/resend`, {})).statusCode).toBe(409);

    // Unlock: deliveries resume for what is published from now on.
    const unlocked = await w.admin('POST', `/abonnementen/${uuidOf(deadUrl)}/unlock`);
    expect(unlocked.statusCode).toBe(200);
    expect(unlocked.json()).toMatchObject({ state: 'active', consecutiveFailures: 0, unlockedBy: 'test-admin' });
    await w.notifier.refresh();
    const n3 = await w.publish({ bronorganisatie: org });
    expect(await eventually(async () => urlsOf(dead).includes(n3))).toBe(true);
    await w.notifier.deliverer.settle();
    expect(urlsOf(dead).slice(before)).toEqual([n3]);
    expect((await w.status(deadUrl))!.state).toBe('active');

    // Resend of everything kept: what it missed (n1, n2) arrives with the ids it had; n3 again too.
    const ids = new Map(healthy.received.map((x) => [String(x.body.resourceUrl), x.id]));
    const req = await w.admin('POST', `/abonnementen/${uuidOf(deadUrl)}/resend`, {});
    expect(req.statusCode).toBe(202);
    expect(req.json()).toMatchObject({ state: 'requested', abonnement: uuidOf(deadUrl), vanaf: null, tot: null });
    await w.notifier.refresh();
    await w.notifier.deliverer.settle();
    const resent = dead.received.filter((x) => x.body.kanaal !== 'test').slice(before + 1);
    expect(resent.map((x) => String(x.body.resourceUrl)).sort()).toEqual([n1, n2, n3].sort());
    for (const x of resent) expect(x.id).toBe(ids.get(String(x.body.resourceUrl)));
    expect((await w.admin('GET', `/resends/${req.json().id}`)).json()).toMatchObject({ state: 'done', queued: 3 });
    expect((await w.deliveries(deadUrl)).map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('resends only the period asked for', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    const early = await w.publish({ bronorganisatie: org });
    expect(await eventually(async () => urlsOf(r).includes(early))).toBe(true);
    await pass(DAY);
    const from = new Date(w.clock.now()).toISOString();
    const late = await w.publish({ bronorganisatie: org });
    expect(await eventually(async () => urlsOf(r).includes(late))).toBe(true);
    await pass(DAY);
    const req = await w.admin('POST', `/abonnementen/${uuidOf(url)}/resend`, { vanaf: from, tot: new Date(w.clock.now()).toISOString() });
    expect(req.statusCode).toBe(202);
    await w.notifier.refresh();
    await w.notifier.deliverer.settle();
    expect(urlsOf(r)).toEqual([early, late, late]);
    expect((await w.admin('GET', `/resends/${req.json().id}`)).json()).toMatchObject({ state: 'done', queued: 1, vanaf: from });
  });

  it('keeps notifications and finished deliveries for the retention period only', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    const n = await w.publish({ bronorganisatie: org });
    expect(await eventually(async () => urlsOf(r).includes(n))).toBe(true);
    await w.notifier.deliverer.settle();
    const kept = () => w.t.mongo.db.collection(NRC_NOTIFICATIES).countDocuments({ 'message.resourceUrl': n });
    await pass(13 * DAY);
    await w.notifier.sweep();
    expect(await kept()).toBe(1);
    expect(await w.deliveries(url)).toHaveLength(1);
    await pass(2 * DAY);
    await w.notifier.sweep();
    expect(await kept()).toBe(0);
    expect(await w.deliveries(url)).toHaveLength(0);
  });
});
