import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import {
  KEPT_ATTEMPTS,
  DEFAULT_TENANT,
  NRC_DELIVERIES,
  NRC_NOTIFICATIES,
  NRC_STATUS,
  STATUS_ATTEMPTS,
  backoffAfter,
  withTrace,
  type AbonnementDoc,
  type Attempt,
  type DeliveryDoc,
  type KeptNotificatie,
  type Logger,
  type StatusDoc,
} from '@zgw/shared';
import type { Clock } from './clock';
import { Lane, freshStatus, payload, type Entry } from './lane';
import { deliveries } from './metrics';
import type { Sender } from './send';

export interface DelivererOptions {
  db: Db;
  log: Logger;
  clock: Clock;
  send: Sender;
  /** Deliveries in flight over all lanes, and in one lane. */
  concurrency: number;
  perLane: number;
  /** Failing this long locks an abonnement; a delivery this old is given up at its next failure. */
  lockAfterMs: number;
  backoffMs: readonly number[];
  queueLimit: number;
  /**
   * Whether attempts may start now (the lease: only while an attempt started now ends within its term). Checked
   * before every start; while it says no, nothing starts and nothing is locked.
   */
  allowed?: () => boolean;
  /** The tenant of abonnementen and notifications kept without one (before tenants): ZGW_DEFAULT_TENANT. */
  defaultTenant?: string;
}

/** The longest a timer sleeps, so a clock that jumps (tests) is noticed. */
const MAX_SLEEP_MS = 1000;
/** Results are written together: after this many, or this long after the first. */
const FLUSH_OPS = 500;
const FLUSH_LINGER_MS = 20;
/**
 * No new attempt starts while this many results wait to be written: MongoDB sets the pace, memory stays bounded, and
 * so does what a crash would send again.
 */
const MAX_UNWRITTEN = 5000;
/** An abonnement's state is written at once when it changes (active, failing, locked); its counters at most this often. */
const STATUS_EVERY_MS = 1000;

/**
 * Delivers pending deliveries lane by lane (one lane per abonnement), independently of the Kafka intake: a slow or
 * dead receiver holds at most its lane's slots (NRC_ABONNEMENT_CONCURRENCY, each for at most the timeout) and the
 * others go on with theirs. Slots are handed out round-robin over the lanes that have work due.
 *
 * Every attempt is recorded with its delivery (time, HTTP status, duration, error), and the abonnement's state with
 * it. Results are written in small batches; a stop waits for the attempts in flight and writes their results, so
 * nothing sent is sent again. A crash between an answer and its write sends that delivery again after the restart
 * (at least once; receivers drop repeats by the notification id).
 *
 * An abonnement fails from its first failed attempt after a success: then one attempt at a time, after the backoff
 * of its consecutive failures (NRC_BACKOFF_SECONDS); the first success ends it. Failing for NRC_LOCK_AFTER_HOURS
 * locks it: its pending deliveries are given up (kept notifications can be resent) and nothing more is sent until an
 * administrator unlocks it.
 */
export class Deliverer {
  private readonly lanes = new Map<string, Lane>();
  private readonly deliveries: Collection<DeliveryDoc>;
  private readonly statuses: Collection<StatusDoc>;
  private readonly kept: Collection<KeptNotificatie>;
  private inflight = 0;
  private seq = 0;
  private rr = 0;
  private stopping = false;
  private timer?: NodeJS.Timeout;
  private wakeAt = Infinity;
  private pumpQueued = false;
  private readonly running = new Set<Promise<void>>();
  private ops: AnyBulkWriteOperation<DeliveryDoc>[] = [];
  private dirty = new Set<Lane>();
  private toLock: Lane[] = [];
  private flushing?: Promise<void>;
  private flushTimer?: NodeJS.Timeout;
  private statusTimer?: NodeJS.Timeout;
  private storeFailures = 0;
  private closed = false;

  constructor(private readonly o: DelivererOptions) {
    this.deliveries = o.db.collection<DeliveryDoc>(NRC_DELIVERIES);
    this.statuses = o.db.collection<StatusDoc>(NRC_STATUS);
    this.kept = o.db.collection<KeptNotificatie>(NRC_NOTIFICATIES);
  }

  lane(id: string): Lane | undefined {
    return this.lanes.get(id);
  }

  /** Every lane (one per abonnement). */
  allLanes(): IterableIterator<Lane> {
    return this.lanes.values();
  }

  get inFlight(): number {
    return this.inflight;
  }

  /** Deliveries queued in memory, over all lanes. */
  get queued(): number {
    let n = 0;
    for (const l of this.lanes.values()) n += l.queue.size;
    return n;
  }

  nextSeq(): number {
    return ++this.seq;
  }

  /**
   * Brings the lanes in line with the abonnementen and their stored state: a lane for each new one (its pending
   * deliveries loaded), changed callbacks and filters taken over, removed ones dropped, and an unlock by an
   * administrator (the stored state active while this lane is locked) resumes the lane.
   */
  async sync(abonnementen: readonly AbonnementDoc[], statuses: ReadonlyMap<string, StatusDoc>): Promise<void> {
    const seen = new Set<string>();
    for (const a of abonnementen) {
      seen.add(a._id);
      const stored = statuses.get(a._id);
      const lane = this.lanes.get(a._id);
      if (lane) {
        lane.target = a;
        if (lane.locked && stored && stored.state !== 'locked') {
          lane.status = { ...freshStatus(a._id), ...stored };
          this.o.log.info({ abonnement: a._id }, 'abonnement unlocked: deliveries resume');
          await this.reload(lane);
        }
        continue;
      }
      const fresh = new Lane(a._id, a, { ...freshStatus(a._id), ...stored });
      this.lanes.set(a._id, fresh);
      if (!stored) await this.statuses.updateOne({ _id: a._id }, { $setOnInsert: freshStatus(a._id) }, { upsert: true });
      if (!fresh.locked) await this.reload(fresh);
    }
    for (const [id, lane] of this.lanes) {
      if (seen.has(id)) continue;
      lane.removed = true;
      lane.queue.drain();
      lane.known.clear();
      this.lanes.delete(id);
    }
    this.schedulePump();
  }

  /** Queues new deliveries of a lane (recorded already); beyond the queue limit they wait in MongoDB. */
  add(laneId: string, entries: Entry[]): void {
    const lane = this.lanes.get(laneId);
    if (!lane || lane.locked) return;
    for (const e of entries) {
      if (lane.known.has(e.id)) continue;
      if (lane.queue.size >= this.o.queueLimit) {
        lane.overflow = true;
        continue;
      }
      lane.push(e);
    }
    this.schedulePump();
  }

  /**
   * Loads a lane's pending deliveries from MongoDB, due first, up to the queue limit, leaving out those it holds.
   * A delivery whose notification is no longer kept cannot be sent: it is given up; so is one whose notification is
   * another tenant's than the abonnement's (as a resend across tenants recorded before resends kept to the tenant).
   */
  reload(lane: Lane): Promise<void> {
    lane.reloading ??= (async () => {
      try {
        const docs = await this.deliveries
          .find({ abonnement: lane.id, state: 'pending' })
          .sort({ nextAt: 1, _id: 1 })
          .limit(this.o.queueLimit)
          .toArray();
        const fresh = docs.filter((d) => !lane.known.has(d._id));
        const ids = [...new Set(fresh.map((d) => d.notificatie))];
        const messages = new Map<string, KeptNotificatie>();
        for (let i = 0; i < ids.length; i += 1000) {
          for (const k of await this.kept.find({ _id: { $in: ids.slice(i, i + 1000) } }).toArray()) messages.set(k._id, k);
        }
        const lost: string[] = [];
        const payloads = new Map<string, ReturnType<typeof payload>>();
        const tenantOf = (t: string | undefined) => t ?? this.o.defaultTenant ?? DEFAULT_TENANT;
        const own = tenantOf(lane.target._tenant);
        for (const d of fresh) {
          const k = messages.get(d.notificatie);
          if (!k || tenantOf(k._tenant) !== own) {
            lost.push(d._id);
            continue;
          }
          let p = payloads.get(k._id);
          if (!p) payloads.set(k._id, (p = payload(k._id, k.message, k._tenant ?? '')));
          if (lane.removed || lane.locked || lane.known.has(d._id)) continue;
          lane.push({
            id: d._id,
            p,
            nextAt: d.nextAt ? new Date(d.nextAt).getTime() : this.o.clock.now(),
            createdAt: new Date(d.createdAt).getTime(),
            tries: d.tries ?? 0,
            attempts: d.attempts ?? [],
            seq: this.nextSeq(),
          });
        }
        if (lost.length) {
          const now = new Date(this.o.clock.now());
          await this.deliveries.updateMany(
            { _id: { $in: lost }, state: 'pending' },
            { $set: { state: 'failed', doneAt: now }, $unset: { nextAt: '' } },
          );
          this.o.log.warn(
            { abonnement: lane.id, deliveries: lost.length },
            "deliveries given up: their notification is no longer kept (or is another tenant's)",
          );
        }
        lane.overflow = docs.length >= this.o.queueLimit;
      } finally {
        lane.reloading = undefined;
        this.schedulePump();
      }
    })();
    return lane.reloading;
  }

  schedulePump(): void {
    if (this.pumpQueued || this.stopping) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  /** Starts what is due, round-robin over the lanes, locks what failed long enough, and sets the timer for what comes next. */
  pump(): void {
    if (this.stopping) return;
    const now = this.o.clock.now();
    const lanes = [...this.lanes.values()];
    if (this.storeFailures === 0 && this.ops.length < MAX_UNWRITTEN && this.allowed()) {
      for (const lane of lanes) {
        if (lane.failing && lane.inflight === 0 && now >= lane.status.failingSince!.getTime() + this.o.lockAfterMs) this.lock(lane, now);
      }
      const room = () => this.inflight < this.o.concurrency && this.ops.length < MAX_UNWRITTEN;
      for (let progress = true; progress && room();) {
        progress = false;
        for (let i = 0; i < lanes.length && room(); i++) {
          const lane = lanes[(this.rr + i) % lanes.length]!;
          if (this.mayStart(lane, now)) {
            this.start(lane, lane.queue.pop()!);
            progress = true;
          }
        }
        this.rr = lanes.length ? (this.rr + 1) % lanes.length : 0;
      }
      for (const lane of lanes) {
        if (lane.overflow && !lane.reloading && lane.queue.size < this.o.queueLimit / 4)
          void this.reload(lane).catch((err: Error) => this.o.log.warn({ err }, 'could not load pending deliveries'));
      }
    }
    let wake = Infinity;
    for (const lane of lanes) wake = Math.min(wake, this.wakeOf(lane));
    this.arm(wake, now);
  }

  private allowed(): boolean {
    return !this.o.allowed || this.o.allowed();
  }

  private mayStart(lane: Lane, now: number): boolean {
    if (lane.locked || lane.removed) return false;
    const head = lane.queue.peek();
    if (!head || head.nextAt > now) return false;
    if (lane.failing) return lane.inflight === 0 && now >= (lane.status.nextAttemptAt?.getTime() ?? 0);
    return lane.inflight < this.o.perLane;
  }

  /** When this lane has something to do next (clock time). */
  private wakeOf(lane: Lane): number {
    if (lane.locked || lane.removed) return Infinity;
    const head = lane.queue.peek();
    if (lane.failing) {
      if (lane.inflight) return Infinity;
      const lockAt = lane.status.failingSince!.getTime() + this.o.lockAfterMs;
      return Math.min(lockAt, head ? Math.max(head.nextAt, lane.status.nextAttemptAt?.getTime() ?? 0) : Infinity);
    }
    return head && lane.inflight < this.o.perLane ? head.nextAt : Infinity;
  }

  private arm(wake: number, now: number): void {
    if (wake === Infinity && this.timer) return;
    const delay = Math.min(Math.max(wake - now, 0), MAX_SLEEP_MS);
    if (this.timer && this.wakeAt <= now + delay) return;
    if (this.timer) clearTimeout(this.timer);
    this.wakeAt = now + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, delay);
    this.timer.unref();
  }

  private start(lane: Lane, entry: Entry): void {
    lane.inflight++;
    this.inflight++;
    const run = (async () => {
      const attempt = await withTrace(entry.p.trace, () => this.o.send(lane.target, entry.p.id, entry.p.body));
      this.record(lane, entry, attempt);
    })().finally(() => {
      lane.inflight--;
      this.inflight--;
      this.running.delete(run);
      this.schedulePump();
    });
    this.running.add(run);
  }

  /** Takes an attempt's outcome into the lane and the delivery, to be written with the next flush. */
  private record(lane: Lane, e: Entry, a: Attempt): void {
    const now = this.o.clock.now();
    e.tries++;
    e.attempts = [...e.attempts, a].slice(-KEPT_ATTEMPTS);
    const s = lane.status;
    s.lastAttempts = [{ ...a, notificatie: e.p.id, kanaal: e.p.kanaal }, ...(s.lastAttempts ?? [])].slice(0, STATUS_ATTEMPTS);
    const done = { lastAttemptAt: a.at, tries: e.tries, attempts: e.attempts };
    if (a.ok) {
      deliveries.inc({ result: 'delivered' });
      s.delivered++;
      s.lastSuccessAt = a.at;
      s.failingSince = null;
      s.consecutiveFailures = 0;
      s.nextAttemptAt = null;
      lane.known.delete(e.id);
      this.ops.push({
        updateOne: {
          filter: { _id: e.id, state: 'pending' },
          update: { $set: { ...done, state: 'delivered', deliveredAt: a.at, doneAt: a.at }, $unset: { nextAt: '' } },
        },
      });
    } else {
      s.failedAttempts++;
      s.consecutiveFailures++;
      s.failingSince ??= a.at;
      s.lastFailureAt = a.at;
      s.nextAttemptAt = new Date(now + backoffAfter(this.o.backoffMs, s.consecutiveFailures));
      deliveries.inc({ result: 'failed' });
      if (now - e.createdAt >= this.o.lockAfterMs || lane.removed) {
        deliveries.inc({ result: 'given_up' });
        lane.known.delete(e.id);
        this.ops.push({
          updateOne: {
            filter: { _id: e.id, state: 'pending' },
            update: { $set: { ...done, state: 'failed', doneAt: new Date(now) }, $unset: { nextAt: '' } },
          },
        });
      } else {
        e.nextAt = now + backoffAfter(this.o.backoffMs, e.tries);
        lane.queue.push(e);
        this.ops.push({ updateOne: { filter: { _id: e.id, state: 'pending' }, update: { $set: { ...done, nextAt: new Date(e.nextAt) } } } });
      }
    }
    s.state = s.failingSince ? 'failing' : 'active';
    if (!lane.removed) this.dirty.add(lane);
    this.scheduleFlush();
  }

  private lock(lane: Lane, now: number): void {
    const s = lane.status;
    s.state = 'locked';
    s.lockedAt = new Date(now);
    s.nextAttemptAt = null;
    lane.queue.drain();
    lane.known.clear();
    lane.overflow = false;
    this.toLock.push(lane);
    this.dirty.add(lane);
    this.o.log.warn(
      { abonnement: lane.id, failingSince: s.failingSince?.toISOString() },
      'abonnement locked: every attempt failed for the lock period',
    );
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.ops.length >= FLUSH_OPS) void this.flush();
    else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        void this.flush();
      }, FLUSH_LINGER_MS);
    }
  }

  /**
   * Writes the recorded results: the deliveries (in order), then the abonnement states that changed (never over a
   * lock it does not know of; counters alone at most every STATUS_EVERY_MS, unless `all`), then the deliveries of newly
   * locked lanes given up. On failure all of it is kept and tried again with backoff, and no new attempt starts
   * meanwhile.
   */
  flush(all = false): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.flushing)
      return this.flushing.then(() => (this.ops.length || this.toLock.length || (all && this.dirty.size) ? this.flush(all) : undefined));
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    const ops = this.ops.splice(0);
    const at = Date.now();
    const dirty = [...this.dirty].filter((l) => all || l.status.state !== l.writtenState || at - l.writtenAt >= STATUS_EVERY_MS);
    for (const l of dirty) this.dirty.delete(l);
    const locks = this.toLock.splice(0);
    if (!ops.length && !dirty.length && !locks.length) return Promise.resolve();
    this.flushing = (async () => {
      try {
        if (ops.length) await this.deliveries.bulkWrite(ops, { ordered: true });
        if (dirty.length) {
          await this.statuses.bulkWrite(
            dirty.map((lane) => {
              const { _id, ...fields } = lane.status;
              return { updateOne: { filter: { _id, state: { $ne: 'locked' } }, update: { $set: fields } } };
            }),
            { ordered: false },
          );
        }
        for (const lane of locks) {
          await this.deliveries.updateMany(
            { abonnement: lane.id, state: 'pending' },
            { $set: { state: 'failed', doneAt: lane.status.lockedAt! }, $unset: { nextAt: '' } },
          );
        }
        for (const l of dirty) {
          l.writtenAt = at;
          l.writtenState = l.status.state;
        }
        if (this.storeFailures) this.o.log.info('delivery results written again: MongoDB reachable');
        this.storeFailures = 0;
      } catch (err) {
        this.ops.unshift(...ops);
        for (const l of dirty) this.dirty.add(l);
        this.toLock.unshift(...locks);
        if (++this.storeFailures === 1) this.o.log.warn({ err }, 'delivery results cannot be written: no new attempts until MongoDB answers');
        const retry = setTimeout(() => void this.flush(), Math.min(200 * 2 ** this.storeFailures, 10_000));
        retry.unref();
      } finally {
        this.flushing = undefined;
        // Counters held back are written on a later round.
        if (this.dirty.size && !this.statusTimer && !this.stopping) {
          this.statusTimer = setTimeout(() => {
            this.statusTimer = undefined;
            void this.flush();
          }, STATUS_EVERY_MS);
          this.statusTimer.unref();
        }
        this.schedulePump();
      }
    })();
    return this.flushing;
  }

  /** Runs until nothing is due now or in flight, everything written (tests, after moving the clock). */
  async settle(): Promise<void> {
    for (let round = 0; round < 10_000; round++) {
      await Promise.all([...this.lanes.values()].map((l) => l.reloading));
      this.pump();
      if (this.running.size) await Promise.race(this.running);
      else {
        await this.flush(true);
        const now = this.o.clock.now();
        const busy =
          this.allowed() &&
          [...this.lanes.values()].some(
            (l) =>
              l.reloading !== undefined ||
              this.mayStart(l, now) ||
              (l.failing && !l.inflight && now >= l.status.failingSince!.getTime() + this.o.lockAfterMs),
          );
        if (!busy && !this.running.size && !this.ops.length && !this.dirty.size && !this.toLock.length) return;
      }
    }
    throw new Error('deliveries did not settle');
  }

  /**
   * Stops starting attempts, lets those in flight finish (each within the timeout) and writes their results (tried
   * five times). What could not be written is dropped: those deliveries are pending still, and sent again (same id)
   * by whichever instance delivers next.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
    for (let i = 0; i < 5 && (this.ops.length || this.dirty.size || this.toLock.length); i++) {
      await this.flush(true);
      if (this.storeFailures) await new Promise((r) => setTimeout(r, 500));
    }
    this.closed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.statusTimer) clearTimeout(this.statusTimer);
    if (this.ops.length) this.o.log.warn({ results: this.ops.length }, 'delivery results not written at stop: those deliveries will be sent again');
  }
}
