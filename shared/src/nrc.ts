import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { z } from 'zod';
import { KANALEN, type Notificatie } from './events';

/**
 * The Notificaties contract between the API (kanalen, abonnementen, the admin endpoints) and services/notifier
 * (fan-out, delivery, lock): collection names, document shapes, indexes, the Kafka topic of a kanaal and how an
 * abonnement's filters match a notification.
 */

/** Kanalen and abonnementen as the Notificaties API stores them (resource collections: `_id` = uuid). */
export const NRC_KANALEN = 'kanalen';
export const NRC_ABONNEMENTEN = 'abonnementen';
/** Notifications the notifier kept (those that matched an abonnement), for resends; `_id` = notification id. */
export const NRC_NOTIFICATIES = 'nrc_notificaties';
/** One notification to one abonnement, with its attempts; `_id` = `<abonnement uuid>:<notification id>`. */
export const NRC_DELIVERIES = 'nrc_deliveries';
/** The delivery state of each abonnement (active, failing, locked); `_id` = abonnement uuid. */
export const NRC_STATUS = 'nrc_abonnement_status';
/** Resend requests of administrators, carried out by the notifier; `_id` = uuid. */
export const NRC_RESENDS = 'nrc_resends';
/** The lease that makes one notifier instance the active one; `_id` = 'notifier'. */
export const NRC_LEASES = 'nrc_leases';

/**
 * The notifier's lease (see services/notifier/src/lease.ts). `term` is new at every acquisition and release,
 * `renewals` counts the renewals of the term: a standby takes over once `term:renewals` stays the same for the lease
 * time on its own clock. `expiresAt` is the holder's wall clock plus `leaseMs`, for people reading it.
 */
export interface LeaseDoc {
  _id: string;
  /** The instance holding it (host, pid and a random part), null once released. */
  owner: string | null;
  term: string;
  renewals: number;
  leaseMs: number;
  acquiredAt: Date | null;
  renewedAt: Date | null;
  expiresAt: Date;
  releasedAt?: Date;
}

/** The notification id a delivery carries in this request header (the `event-id` of the platform's event). */
export const NOTIFICATION_ID_HEADER = 'X-Notificatie-Id';

/**
 * A kanaal and an abonnement as the Notificaties API stores them and the notifier reads them: one definition for both
 * (the API's request schemas produce these shapes; the stored document adds `_id`, and `_tombstone`/`_tenant`).
 */
export const StoredKanaal = z.object({ naam: z.string(), documentatieLink: z.string(), filters: z.array(z.string()) });
export const StoredFilterGroup = z.object({ naam: z.string(), filters: z.record(z.string(), z.string()) });
export const StoredAbonnement = z.object({ callbackUrl: z.string(), auth: z.string(), kanalen: z.array(StoredFilterGroup) });
export type KanaalFields = z.infer<typeof StoredKanaal>;
export type FilterGroup = z.infer<typeof StoredFilterGroup>;
export type AbonnementFields = z.infer<typeof StoredAbonnement>;

/** What the store adds to a resource document. */
interface Kept {
  _id: string;
  _tombstone?: true;
  /** The tenant whose object it is (an abonnement receives that tenant's notifications only). */
  _tenant?: string;
}
export type AbonnementDoc = AbonnementFields & Kept;
export type KanaalDoc = KanaalFields & Kept;

/** A notification as the notifier keeps it. */
export interface KeptNotificatie {
  _id: string;
  kanaal: string;
  message: Notificatie;
  receivedAt: Date;
  /** The tenant whose notification it is (absent: kept before tenants, the default tenant's). */
  _tenant?: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One attempt to deliver: when, the receiver's HTTP status (null: no answer), how long, and what went wrong. */
export interface Attempt {
  at: Date;
  status: number | null;
  durationMs: number;
  ok: boolean;
  error: string | null;
}

export interface DeliveryDoc {
  _id: string;
  /** The tenant of the abonnement (absent: made before tenants, the default tenant's). */
  _tenant?: string;
  abonnement: string;
  notificatie: string;
  kanaal: string;
  state: DeliveryState;
  createdAt: Date;
  /** When it is due (pending only). */
  nextAt?: Date;
  tries: number;
  lastAttemptAt?: Date;
  deliveredAt?: Date;
  /** Set once it is delivered or given up: what the retention sweep goes by. */
  doneAt?: Date;
  resent?: boolean;
  attempts: Attempt[];
}

export type AbonnementState = 'active' | 'failing' | 'locked';

/** An attempt as the abonnement's status lists it (the last few, newest first). */
export interface StatusAttempt extends Attempt {
  notificatie: string;
  kanaal: string;
}

export interface StatusDoc {
  _id: string;
  state: AbonnementState;
  failingSince: Date | null;
  consecutiveFailures: number;
  failedAttempts: number;
  delivered: number;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  nextAttemptAt: Date | null;
  lockedAt: Date | null;
  unlockedAt: Date | null;
  unlockedBy: string | null;
  lastAttempts: StatusAttempt[];
}

export interface ResendDoc {
  _id: string;
  abonnement: string;
  vanaf: Date | null;
  tot: Date | null;
  state: 'requested' | 'done';
  requestedAt: Date;
  requestedBy: string;
  doneAt: Date | null;
  queued: number | null;
}

/** How many attempts a delivery keeps, and the abonnement's status lists. */
export const KEPT_ATTEMPTS = 25;
export const STATUS_ATTEMPTS = 10;

/**
 * The indexes of every query on these collections, declared by the API and the notifier alike:
 * - deliveries: the pending ones in due order (the notifier's start), one abonnement's pending ones in due order
 *   (its queue, its count), one abonnement's deliveries newest first, by state or not (the admin screen), the done
 *   ones by age (retention);
 * - kept notifications: one tenant's on one kanaal in a period (resend: kanalen are shared, what they carry is a
 *   tenant's), all by age (retention);
 * - resend requests: the open ones oldest first, one abonnement's newest first.
 */
export const NRC_INDEXES: Readonly<Record<string, readonly { key: Record<string, 1 | -1>; sparse?: boolean }[]>> = {
  [NRC_DELIVERIES]: [
    { key: { state: 1, nextAt: 1, _id: 1 } },
    { key: { abonnement: 1, state: 1, nextAt: 1, _id: 1 } },
    { key: { abonnement: 1, createdAt: -1, _id: -1 } },
    { key: { abonnement: 1, state: 1, createdAt: -1, _id: -1 } },
    // Only finished deliveries have doneAt.
    { key: { doneAt: 1 }, sparse: true },
  ],
  [NRC_NOTIFICATIES]: [{ key: { _tenant: 1, kanaal: 1, receivedAt: 1, _id: 1 } }, { key: { receivedAt: 1 } }],
  [NRC_RESENDS]: [{ key: { state: 1, requestedAt: 1, _id: 1 } }, { key: { abonnement: 1, requestedAt: -1, _id: -1 } }],
};

const INDEX_NOT_FOUND = 27;

/** Indexes of earlier versions that a declared one replaced, by collection: dropped where they exist. */
const NRC_REPLACED_INDEXES: Readonly<Record<string, readonly string[]>> = {
  // a resend reads one tenant's kept notifications of a kanaal (the index led by kanaal served every tenant's)
  [NRC_NOTIFICATIES]: ['kanaal_1_receivedAt_1__id_1'],
};

export async function ensureNrcIndexes(db: Db): Promise<void> {
  for (const [coll, specs] of Object.entries(NRC_INDEXES)) {
    for (const spec of specs) await db.collection(coll).createIndex(spec.key, spec.sparse ? { sparse: true } : {});
  }
  for (const [coll, names] of Object.entries(NRC_REPLACED_INDEXES)) {
    const present = new Set((await db.collection(coll).indexes()).map((ix) => ix.name));
    for (const name of names) {
      // (another instance starting at the same time may have dropped it first)
      if (present.has(name))
        await db
          .collection(coll)
          .dropIndex(name)
          .catch((err: { code?: number }) => {
            if (err.code !== INDEX_NOT_FOUND) throw err;
          });
    }
  }
}

/**
 * The Kafka topic (without prefix) of a kanaal: the platform's own kanalen keep their names (their events are on
 * those topics already); any other kanaal gets `nrc.<naam>`, or `nrc.h.<sha-256>` for a name Kafka does not accept,
 * so no kanaal can reach the platform's other topics (audit, cache).
 */
export function kanaalTopic(naam: string): string {
  if ((KANALEN as readonly string[]).includes(naam)) return naam;
  if (/^[A-Za-z0-9_-]{1,200}$/.test(naam)) return `nrc.${naam}`;
  return `nrc.h.${createHash('sha256').update(naam).digest('hex')}`;
}

/** The kenmerken each of the platform's own kanalen carries (the filters an abonnement may use on it). */
export const KANAAL_KENMERKEN: Readonly<Record<string, readonly string[]>> = {
  autorisaties: [],
  zaaktypen: ['catalogus'],
  informatieobjecttypen: ['catalogus'],
  besluittypen: ['catalogus'],
  zaken: ['bronorganisatie', 'zaaktype', 'vertrouwelijkheidaanduiding'],
  documenten: ['bronorganisatie', 'informatieobjecttype', 'vertrouwelijkheidaanduiding'],
  besluiten: ['verantwoordelijkeOrganisatie', 'besluittype'],
  overdrachten: ['bronorganisatie', 'doelregistratie', 'status'],
};

/**
 * Whether an abonnement wants a notification: one of its kanalen has the notification's kanaal and every filter of
 * that kanaal holds (the kenmerk has that value; `*` accepts any value, even none).
 */
export function matches(kanalen: readonly FilterGroup[], n: Pick<Notificatie, 'kanaal' | 'kenmerken'>): boolean {
  return kanalen.some(
    (k) => k.naam === n.kanaal && Object.entries(k.filters ?? {}).every(([key, value]) => value === '*' || n.kenmerken?.[key] === value),
  );
}

/** The delivery id of a notification to an abonnement. */
export const deliveryId = (abonnement: string, notificatie: string): string => `${abonnement}:${notificatie}`;

/** NRC_BACKOFF_SECONDS as a list of milliseconds. */
export function parseBackoff(spec: string): number[] {
  const steps = spec.split(',').map((s) => Number(s.trim()));
  if (!steps.length || steps.some((s) => !Number.isFinite(s) || s <= 0))
    throw new Error(`NRC_BACKOFF_SECONDS: expected positive numbers separated by commas, got "${spec}"`);
  return steps.map((s) => Math.round(s * 1000));
}

/** The wait after the n-th consecutive failure (1-based); past the list, its last step repeats. */
export function backoffAfter(steps: readonly number[], failures: number): number {
  return steps[Math.min(Math.max(failures, 1), steps.length) - 1]!;
}
