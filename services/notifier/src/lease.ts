import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { NRC_LEASES, type LeaseDoc, type Logger } from '@zgw/shared';
import type { Clock } from './clock';

/** A clock that only goes forward (the lease measures durations, never dates). */
export const monotonicClock: Clock = { now: () => performance.now() };

export interface LeaseOptions {
  db: Db;
  log: Logger;
  /** How long a term lasts without renewal (NRC_LEASE_SECONDS). */
  leaseMs: number;
  /** Durations are measured on this clock (monotonic; tests move their own). */
  clock?: Clock;
  /** This instance; unique per process. */
  owner?: string;
  /** The document's `_id`. */
  name?: string;
  /** Whether a term may begin now (the previous term's work has ended). */
  mayAcquire?: () => boolean;
  onAcquired?: () => void;
  onLost?: (reason: string) => void;
}

const DUPLICATE_KEY = 11000;

/**
 * The lease that makes one notifier instance the one that delivers: one document in `nrc_leases`, read and written
 * by `_id` only, with conditional updates.
 *
 * - A free lease (no document, or one released by a stop) is taken at once: an insert, or an update on the `term`
 *   and `renewals` just read, so of instances trying together exactly one succeeds.
 * - The holder renews every third of the lease time (`renewals` + 1, on its `term`). Its term is valid until the
 *   lease time after it sent the last renewal that succeeded, on its own clock; it starts no delivery that could
 *   still be under way then (the margin: NRC_DELIVERY_TIMEOUT_MS), and at that moment it gives the term up, whether
 *   or not MongoDB answers.
 * - A standby reads the document; once the same `term:renewals` has stood for the lease time on its own clock
 *   (counted from when it first read it, so after that renewal was written), it takes the lease over, on that
 *   `term:renewals`. The holder's term had ended by then: both count the same duration from the same renewal, the
 *   holder from before it was written, the standby from after. Only the clocks' rates matter, never their settings.
 * - A stop releases it (a new term without owner), and a standby takes it at its next read.
 */
export class Lease {
  readonly owner: string;
  private readonly coll: Collection<LeaseDoc>;
  private readonly clock: Clock;
  private readonly name: string;
  private term?: string;
  private until = -Infinity;
  private renewAt = -Infinity;
  private seen?: { key: string; at: number; leaseMs: number };
  private op?: { started: number; done: Promise<void> };
  private closed = false;

  constructor(private readonly o: LeaseOptions) {
    this.owner = o.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.coll = o.db.collection<LeaseDoc>(NRC_LEASES);
    this.clock = o.clock ?? monotonicClock;
    this.name = o.name ?? 'notifier';
  }

  /** Whether this instance holds the lease now. */
  get holding(): boolean {
    return this.term !== undefined;
  }

  /** Whether work that ends within `withinMs` from now ends within the term. */
  valid(withinMs = 0): boolean {
    return this.term !== undefined && this.clock.now() + withinMs < this.until;
  }

  /** How often `tick()` should run: ten times in the lease time. */
  get interval(): number {
    return this.o.leaseMs / 10;
  }

  /**
   * One round: ends the term if it ran out; then, holding, renews when a third of the lease time has passed since the
   * last renewal (at once after one failed); standing by, reads the lease and takes it if it is free or stale. A round
   * still waiting for MongoDB is not repeated (unless it waited longer than the lease time), so the end of a term
   * never waits for an answer.
   */
  tick(): Promise<void> {
    const now = this.clock.now();
    if (this.term !== undefined && now >= this.until) this.lose('not renewed within the lease time');
    if (this.closed) return Promise.resolve();
    if (this.op && now - this.op.started < this.o.leaseMs) return this.op.done;
    if (this.term !== undefined && now < this.renewAt) return Promise.resolve();
    const op = { started: now, done: Promise.resolve() };
    op.done = (this.term !== undefined ? this.renew(this.term) : this.tryAcquire())
      .catch((err: Error) => this.o.log.warn({ err }, this.holding ? 'lease not renewed' : 'lease not read'))
      .finally(() => {
        if (this.op === op) this.op = undefined;
      });
    this.op = op;
    return op.done;
  }

  /** Releases the lease (a stop): a standby takes it at its next read. No more rounds after this. */
  async release(): Promise<void> {
    this.closed = true;
    await this.op?.done;
    const term = this.term;
    if (term === undefined) return;
    this.term = undefined;
    const now = new Date();
    await this.coll.updateOne({ _id: this.name, term }, { $set: { owner: null, term: randomUUID(), renewals: 0, expiresAt: now, releasedAt: now } });
    this.o.log.info({ owner: this.owner }, 'lease released');
  }

  /** Ends the term here (its work could not start): the lease, still this instance's, is taken again at a next round. */
  drop(reason: string): void {
    this.lose(reason);
  }

  private async renew(term: string): Promise<void> {
    const sent = this.clock.now();
    const wall = Date.now();
    const r = await this.coll.updateOne(
      { _id: this.name, term },
      { $inc: { renewals: 1 }, $set: { renewedAt: new Date(wall), expiresAt: new Date(wall + this.o.leaseMs), leaseMs: this.o.leaseMs } },
    );
    if (this.term !== term) return;
    if (r.matchedCount !== 1) return this.lose('taken over by another instance');
    this.until = Math.max(this.until, sent + this.o.leaseMs);
    this.renewAt = sent + this.o.leaseMs / 3;
  }

  private async tryAcquire(): Promise<void> {
    const doc = await this.coll.findOne({ _id: this.name });
    const readAt = this.clock.now();
    if (!doc) return this.take(null);
    const key = `${doc.term}:${doc.renewals}`;
    if (this.seen?.key !== key) this.seen = { key, at: readAt, leaseMs: doc.leaseMs ?? this.o.leaseMs };
    // Free: released, or a term of this instance it has given up (its work has ended).
    const free = doc.owner === null || doc.owner === this.owner;
    // Stale: not renewed for the lease time (the longer of the holder's and this instance's).
    const stale = readAt - this.seen.at >= Math.max(this.seen.leaseMs, this.o.leaseMs);
    if (free || stale) await this.take(doc, stale && !free ? doc.owner : undefined);
  }

  /** Takes the lease: an insert where there is none, else an update on the term and renewals just read. */
  private async take(doc: LeaseDoc | null, from?: string | null): Promise<void> {
    if (this.closed || (this.o.mayAcquire && !this.o.mayAcquire())) return;
    const term = randomUUID();
    const sent = this.clock.now();
    const wall = new Date();
    const fields = {
      owner: this.owner,
      term,
      renewals: 0,
      leaseMs: this.o.leaseMs,
      acquiredAt: wall,
      renewedAt: wall,
      expiresAt: new Date(wall.getTime() + this.o.leaseMs),
    };
    let won: boolean;
    if (!doc) {
      try {
        await this.coll.insertOne({ _id: this.name, ...fields });
        won = true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return;
        throw err;
      }
    } else {
      const r = await this.coll.updateOne({ _id: this.name, term: doc.term, renewals: doc.renewals }, { $set: fields, $unset: { releasedAt: '' } });
      won = r.matchedCount === 1;
    }
    if (!won) return;
    // Held even when closed meanwhile: release() then gives it back.
    this.term = term;
    this.until = sent + this.o.leaseMs;
    this.renewAt = sent + this.o.leaseMs / 3;
    this.seen = undefined;
    this.o.log.info(
      { owner: this.owner, ...(from ? { from } : {}) },
      from ? 'lease taken over: it was not renewed within the lease time' : 'lease taken',
    );
    if (!this.closed) this.o.onAcquired?.();
  }

  private lose(reason: string): void {
    if (this.term === undefined) return;
    this.term = undefined;
    this.until = -Infinity;
    this.o.log.warn({ owner: this.owner, reason }, 'lease lost: deliveries stop');
    this.o.onLost?.(reason);
  }
}
