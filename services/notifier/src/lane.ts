import type { AbonnementDoc, Attempt, Notificatie, StatusDoc, TraceContext } from '@zgw/shared';
import { Heap } from './heap';

/** A notification as the notifier sends it: its id, the message and the body (serialised once for every abonnement). */
export interface Payload {
  id: string;
  kanaal: string;
  message: Notificatie;
  body: string;
  /** The trace the notification came with (its intake span), continued by each delivery's POST. */
  trace?: TraceContext;
  /** The tenant whose write made the notification: only its abonnementen receive it. */
  tenant: string;
}

export function payload(id: string, message: Notificatie, tenant: string, trace?: TraceContext): Payload {
  return { id, kanaal: message.kanaal, message, body: JSON.stringify(message), tenant, ...(trace ? { trace } : {}) };
}

/** A pending delivery in memory (its record in nrc_deliveries is the durable one). */
export interface Entry {
  id: string;
  p: Payload;
  nextAt: number;
  createdAt: number;
  tries: number;
  attempts: Attempt[];
  /** Arrival order among deliveries due at the same moment. */
  seq: number;
}

/**
 * One abonnement's queue: its pending deliveries, due first on top, and its state. A lane sends at most
 * NRC_ABONNEMENT_CONCURRENCY at once while its receiver answers; while it fails, one attempt at a time at the
 * backoff's pace; while locked, nothing.
 */
export class Lane {
  readonly queue = new Heap<Entry>((a, b) => a.nextAt < b.nextAt || (a.nextAt === b.nextAt && a.seq < b.seq));
  /** Ids queued or in flight here (a delivery recorded twice is queued once). */
  readonly known = new Set<string>();
  inflight = 0;
  /** More pending deliveries wait in MongoDB than the queue holds (NRC_QUEUE_LIMIT). */
  overflow = false;
  removed = false;
  reloading?: Promise<void>;
  /** When its state was last written, and which state (see Deliverer.flush). */
  writtenAt = 0;
  writtenState?: string;

  constructor(
    readonly id: string,
    public target: AbonnementDoc,
    public status: StatusDoc,
  ) {}

  get locked(): boolean {
    return this.status.state === 'locked';
  }

  get failing(): boolean {
    return !this.locked && this.status.failingSince !== null;
  }

  push(e: Entry): void {
    this.known.add(e.id);
    this.queue.push(e);
  }
}

export function freshStatus(id: string): StatusDoc {
  return {
    _id: id,
    state: 'active',
    failingSince: null,
    consecutiveFailures: 0,
    failedAttempts: 0,
    delivered: 0,
    lastSuccessAt: null,
    lastFailureAt: null,
    nextAttemptAt: null,
    lockedAt: null,
    unlockedAt: null,
    unlockedBy: null,
    lastAttempts: [],
  };
}
