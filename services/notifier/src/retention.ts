import type { Db } from 'mongodb';
import { NRC_DELIVERIES, NRC_NOTIFICATIES, NRC_RESENDS, type DeliveryDoc, type KeptNotificatie, type ResendDoc } from '@zgw/shared';

/**
 * Removes what is older than the retention (NRC_RETENTION_DAYS): kept notifications by the time they arrived,
 * finished deliveries (with their attempts) by the time they finished, and carried-out resend requests. Pending
 * deliveries stay: they end by delivery or by being given up, within the lock period.
 */
export async function sweep(db: Db, now: number, retentionMs: number): Promise<{ notificaties: number; deliveries: number }> {
  const cutoff = new Date(now - retentionMs);
  const n = await db.collection<KeptNotificatie>(NRC_NOTIFICATIES).deleteMany({ receivedAt: { $lt: cutoff } });
  const d = await db.collection<DeliveryDoc>(NRC_DELIVERIES).deleteMany({ doneAt: { $lt: cutoff } });
  await db.collection<ResendDoc>(NRC_RESENDS).deleteMany({ state: 'done', requestedAt: { $lt: cutoff } });
  return { notificaties: n.deletedCount, deliveries: d.deletedCount };
}
