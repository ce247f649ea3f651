import { createHash } from 'node:crypto';
import { MongoBulkWriteError, type Db } from 'mongodb';
import {
  EVENT_ID_HEADER,
  NRC_DELIVERIES,
  NRC_NOTIFICATIES,
  deliveryId,
  CE_TENANT,
  endSpans,
  matches,
  sleep,
  startConsumeSpan,
  TENANT_FIELD,
  traceOf,
  type BatchPayload,
  type Span,
  type DeliveryDoc,
  type KeptNotificatie,
  type Logger,
  Notificatie,
} from '@zgw/shared';
import type { Clock } from './clock';
import type { Deliverer } from './deliverer';
import { payload, type Entry, type Payload } from './lane';
import type { Registry } from './registry';

export type { BatchPayload } from '@zgw/shared';

export interface IntakeOptions {
  db: Db;
  /** The tenant of notifications whose message names none (published before tenants): ZGW_DEFAULT_TENANT. */
  defaultTenant: string;
  registry: Registry;
  deliverer: Deliverer;
  clock: Clock;
  log: Logger;
  /** Messages per write (a Kafka batch can hold thousands). */
  chunkSize?: number;
  /** Waits `ms`, or less once `stop()` says so. */
  sleep?: (ms: number, stop: () => boolean) => Promise<void>;
}

const DUPLICATE_KEY = 11000;

/**
 * The `eachBatch` of the notifier: for each chunk of notifications, the matching abonnementen (their kanaal and
 * filters) each get a delivery, recorded in MongoDB with the notification (kept for resends) before the chunk's
 * offset is committed. So a crash at any point leaves the uncommitted part to be consumed again, and recording by
 * id only where absent makes that harmless: a delivery is recorded once, and one already made is not made again.
 * Delivery itself runs apart (Deliverer), so a slow receiver never holds up the intake. A locked abonnement gets no
 * delivery, but the notification is kept for it. The abonnementen are re-read first when the chunk holds a message
 * newer than the last reading, so an abonnement stored before a notification was published receives it.
 */
export function intakeHandler(o: IntakeOptions): (p: BatchPayload) => Promise<void> {
  const chunkSize = o.chunkSize ?? 200;
  const wait = o.sleep ?? sleep;
  const kept = o.db.collection<KeptNotificatie>(NRC_NOTIFICATIES);
  const deliveries = o.db.collection<DeliveryDoc>(NRC_DELIVERIES);
  let unreachableSince: number | undefined;

  return async (p) => {
    const { batch } = p;
    const where = { topic: batch.topic, partition: batch.partition };
    const halted = () => !p.isRunning() || p.isStale();
    for (let i = 0; i < batch.messages.length; i += chunkSize) {
      if (halted()) return;
      const chunk = batch.messages.slice(i, i + chunkSize);
      const items: Payload[] = [];
      // a CONSUMER span per notification, child of the write that published it; its deliveries continue it
      const spans: Span[] = [];
      let newest = 0;
      for (const m of chunk) {
        const n = parse(m.value);
        if (!n) {
          o.log.warn({ ...where, offset: m.offset }, 'message skipped: not a notification');
          continue;
        }
        const span = startConsumeSpan(batch.topic, m.headers);
        spans.push(span);
        const id = eventId(m.headers?.[EVENT_ID_HEADER]) ?? fallbackId(batch.topic, batch.partition, m.offset);
        items.push(payload(id, n, m.headers?.[CE_TENANT]?.toString() || o.defaultTenant, traceOf(span)));
        newest = Math.max(newest, Number(m.timestamp) || 0);
      }
      try {
        for (let delay = 200; ; delay = Math.min(delay * 2, 10_000)) {
          try {
            await o.registry.freshFor(newest);
            const added = await record(items);
            for (const [lane, entries] of added) o.deliverer.add(lane, entries);
            if (unreachableSince !== undefined) {
              o.log.info({ ...where, downMs: Date.now() - unreachableSince }, 'notifications recorded again: MongoDB reachable');
              unreachableSince = undefined;
            }
            break;
          } catch (err) {
            if (unreachableSince === undefined) {
              unreachableSince = Date.now();
              o.log.warn({ ...where, offset: chunk[0]!.offset, err }, 'notifications cannot be recorded: they wait in Kafka, retried with backoff');
            }
          }
          await wait(delay, halted);
          if (halted()) return;
          await p.heartbeat();
        }
      } finally {
        endSpans(spans);
      }
      p.resolveOffset(chunk[chunk.length - 1]!.offset);
      await p.commitOffsetsIfNecessary(p.uncommittedOffsets());
      await p.heartbeat();
    }
  };

  /** Records the chunk's deliveries (and keeps their notifications); returns the new ones per lane. */
  async function record(items: Payload[]): Promise<Map<string, Entry[]>> {
    const now = o.clock.now();
    const at = new Date(now);
    const keep: KeptNotificatie[] = [];
    const docs: DeliveryDoc[] = [];
    const entries: { lane: string; e: Entry }[] = [];
    for (const it of items) {
      let matched = false;
      for (const a of o.registry.forKanaal(it.kanaal)) {
        // Kanalen are shared; abonnementen and the notifications they receive are a tenant's.
        if ((a._tenant ?? o.defaultTenant) !== it.tenant || !matches(a.kanalen, it.message)) continue;
        matched = true;
        const lane = o.deliverer.lane(a._id);
        if (!lane || lane.locked) continue;
        const id = deliveryId(a._id, it.id);
        docs.push({
          _id: id,
          abonnement: a._id,
          notificatie: it.id,
          kanaal: it.kanaal,
          state: 'pending',
          createdAt: at,
          nextAt: at,
          tries: 0,
          attempts: [],
          [TENANT_FIELD]: it.tenant,
        });
        entries.push({ lane: a._id, e: { id, p: it, nextAt: now, createdAt: now, tries: 0, attempts: [], seq: o.deliverer.nextSeq() } });
      }
      if (matched) keep.push({ _id: it.id, kanaal: it.kanaal, message: it.message, receivedAt: at, [TENANT_FIELD]: it.tenant });
    }
    // The notification first: a delivery never exists without the message it sends.
    await insertAbsent(kept, keep);
    const present = await insertAbsent(deliveries, docs);
    const out = new Map<string, Entry[]>();
    for (const { lane, e } of entries) {
      if (present.has(e.id)) continue;
      const list = out.get(lane) ?? [];
      list.push(e);
      out.set(lane, list);
    }
    return out;
  }
}

/** Inserts documents by `_id` where absent; returns the ids that were there already. Other errors are thrown. */
async function insertAbsent<T extends { _id: string }>(coll: import('mongodb').Collection<T>, docs: T[]): Promise<Set<string>> {
  const present = new Set<string>();
  if (!docs.length) return present;
  try {
    await coll.insertMany(docs as never, { ordered: false });
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError) || err.writeConcernError) throw err;
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    if (errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
    for (const e of errors) present.add(docs[e.index]!._id);
  }
  return present;
}

function eventId(header: unknown): string | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  const s = v === undefined || v === null ? '' : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  return /^[A-Za-z0-9._:-]{1,100}$/.test(s) ? s : undefined;
}

/** An id for a message without an event id: the same at every redelivery (topic, partition, offset). */
function fallbackId(topic: string, partition: number, offset: string): string {
  return createHash('sha256').update(`${topic}/${partition}/${offset}`).digest('hex').slice(0, 32);
}

/**
 * A message as the notifier takes it: the shared Notificatie schema, with kenmerken that are not a map of strings
 * read as none (a notification without kenmerken still reaches the abonnementen without filters).
 */
const Message = Notificatie.extend({ kenmerken: Notificatie.shape.kenmerken.catch({}) });

/** A notification (the NRC message) from a message value, or undefined. */
function parse(value: Buffer | null): Notificatie | undefined {
  if (!value?.length) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(value.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = Message.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}
