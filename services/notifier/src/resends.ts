import type { AnyBulkWriteOperation, Db, Filter } from 'mongodb';
import { MongoBulkWriteError } from 'mongodb';
import {
  NRC_DELIVERIES,
  NRC_NOTIFICATIES,
  NRC_RESENDS,
  deliveryId,
  matches,
  type AbonnementDoc,
  type DeliveryDoc,
  type KeptNotificatie,
  type Logger,
  type ResendDoc,
  TENANT_FIELD,
} from '@zgw/shared';
import type { Clock } from './clock';
import type { Deliverer } from './deliverer';

const PAGE = 1000;
const DUPLICATE_KEY = 11000;
const FAR = new Date(8.64e15);

/**
 * Carries out the resend requests of administrators, oldest first: every kept notification of the abonnement's own
 * tenant in the period on its kanalen that its filters accept gets a pending delivery again (one that is pending
 * already stays as it is). Kanalen are shared, so a kanaal holds the notifications of every tenant: those of another
 * tenant are never resent. It is sent with the same notification id as before, so a receiver that has it drops it.
 * `defaultTenant` (ZGW_DEFAULT_TENANT) is the tenant of abonnementen and notifications kept without one (before tenants).
 */
export async function processResends(
  db: Db,
  deliverer: Deliverer,
  abonnementen: (id: string) => AbonnementDoc | undefined,
  clock: Clock,
  log: Logger,
  defaultTenant: string,
): Promise<number> {
  const requests = db.collection<ResendDoc>(NRC_RESENDS);
  const open = await requests.find({ state: 'requested' }).sort({ requestedAt: 1, _id: 1 }).limit(20).toArray();
  for (const r of open) {
    const a = abonnementen(r.abonnement);
    const lane = deliverer.lane(r.abonnement);
    const queued = a && lane && !lane.locked ? await resend(db, a, r, clock, defaultTenant) : 0;
    await requests.updateOne({ _id: r._id, state: 'requested' }, { $set: { state: 'done', doneAt: new Date(clock.now()), queued } });
    if (lane && queued) await deliverer.reload(lane);
    log.info({ abonnement: r.abonnement, resend: r._id, queued }, 'resend carried out');
  }
  return open.length;
}

async function resend(db: Db, a: AbonnementDoc, r: ResendDoc, clock: Clock, defaultTenant: string): Promise<number> {
  const kept = db.collection<KeptNotificatie>(NRC_NOTIFICATIES);
  const deliveries = db.collection<DeliveryDoc>(NRC_DELIVERIES);
  const now = new Date(clock.now());
  const period = { $gte: r.vanaf ?? new Date(0), $lt: r.tot ?? FAR };
  const tenant = a._tenant ?? defaultTenant;
  // the default tenant's notifications include those kept before tenants (without one): a second pass by null
  const tenants: (string | null)[] = tenant === defaultTenant ? [tenant, null] : [tenant];
  const scopes = [...new Set(a.kanalen.map((k) => k.naam))].flatMap((naam) => tenants.map((own) => ({ naam, own })));
  let queued = 0;
  for (const { naam, own } of scopes) {
    let after: { at: Date; id: string } | undefined;
    for (;;) {
      const keyset = after ? [{ $or: [{ receivedAt: { $gt: after.at } }, { receivedAt: after.at, _id: { $gt: after.id } }] }] : [];
      const page = await kept
        .find({ $and: [{ [TENANT_FIELD]: own, kanaal: naam, receivedAt: period } as Filter<KeptNotificatie>, ...keyset] })
        .sort({ receivedAt: 1, _id: 1 })
        .limit(PAGE)
        .toArray();
      const ops: AnyBulkWriteOperation<DeliveryDoc>[] = page
        .filter((k) => matches(a.kanalen, k.message))
        .map((k) => ({
          updateOne: {
            // Not one that is pending: it is in a queue already (the upsert then meets its id and is refused).
            filter: { _id: deliveryId(a._id, k._id), state: { $ne: 'pending' } },
            update: {
              $set: { state: 'pending', nextAt: now, createdAt: now, resent: true },
              $unset: { doneAt: '', deliveredAt: '' },
              $setOnInsert: { abonnement: a._id, notificatie: k._id, kanaal: k.kanaal, tries: 0, attempts: [], [TENANT_FIELD]: tenant },
            },
            upsert: true,
          },
        }));
      if (ops.length) queued += await apply(deliveries, ops);
      if (page.length < PAGE) break;
      const last = page[page.length - 1]!;
      after = { at: last.receivedAt, id: last._id };
    }
  }
  return queued;
}

/** Applies the upserts; those refused because the delivery is pending already do not count. */
async function apply(deliveries: import('mongodb').Collection<DeliveryDoc>, ops: AnyBulkWriteOperation<DeliveryDoc>[]): Promise<number> {
  try {
    const r = await deliveries.bulkWrite(ops, { ordered: false });
    return r.upsertedCount + r.modifiedCount;
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError) || err.writeConcernError) throw err;
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    if (errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
    return err.result.upsertedCount + err.result.modifiedCount;
  }
}
