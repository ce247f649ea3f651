import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Document, Filter } from 'mongodb';
import { z } from 'zod';
import {
  NRC_ABONNEMENTEN,
  NRC_DELIVERIES,
  NRC_NOTIFICATIES,
  NRC_RESENDS,
  NRC_STATUS,
  TENANT_FIELD,
  ensureNrcIndexes,
  parseBackoff,
  type AbonnementDoc,
  type DeliveryDoc,
  type KeptNotificatie,
  type ResendDoc,
  type StatusDoc,
} from '@zgw/shared';
import type { Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';
import { adminCaller } from './rights';
import { PAGE_SIZE, PageQuery, envelope, parsePage } from '../common/http/pagination';
import { Store, type Stored } from '../common/storage/store';
import { UUID } from '../common/http/urls';
import { jsonObject, parseOrThrow } from '../common/http/validation';

const BASE = '/admin/api/v1/notificaties';
const HOUR = 3_600_000;

const Moment = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'Verwacht een datum of datum-tijd (ISO 8601).',
    params: { code: 'invalid' },
  })
  .transform((s) => new Date(s));

const ResendInput = z.object({ vanaf: Moment.nullable().optional(), tot: Moment.nullable().optional() }).strict();
const DeliveriesQuery = z.object({ state: z.enum(['pending', 'delivered', 'failed']).optional() }).extend(PageQuery.shape);

const iso = (d: Date | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

/** A status for an abonnement the notifier has not written one for yet (nothing attempted). */
function freshStatus(id: string): StatusDoc {
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

/**
 * Administration of deliveries (contract: docs/notificaties.md): the abonnementen with their delivery state, their
 * deliveries with every attempt, unlock, and resends of kept notifications, which the notifier carries out.
 */
export async function registerNotificatiesAdmin(app: FastifyInstance, deps: Deps): Promise<void> {
  await ensureNrcIndexes(deps.db);
  const abonnementen = new Store<AbonnementDoc & Document>(deps.db, NRC_ABONNEMENTEN, () => undefined);
  abonnementen.maxSkip = deps.config.PAGE_SKIP_LIMIT;
  const deliveries = new Store<DeliveryDoc & Document>(deps.db, NRC_DELIVERIES, () => undefined);
  deliveries.maxSkip = deps.config.PAGE_SKIP_LIMIT;
  const statuses = deps.db.collection<StatusDoc>(NRC_STATUS);
  const resends = deps.db.collection<ResendDoc>(NRC_RESENDS);
  const kept = deps.db.collection<KeptNotificatie>(NRC_NOTIFICATIES);
  const lockAfterMs = deps.config.NRC_LOCK_AFTER_HOURS * HOUR;
  const abonnementUrl = (uuid: string) => deps.urls.resource('notificaties', 'abonnement', uuid);

  const view = (a: Stored<AbonnementDoc & Document>, s: StatusDoc = freshStatus(a._id)) => {
    const state = s.state === 'locked' ? 'locked' : s.failingSince ? 'failing' : 'active';
    return {
      uuid: a._id,
      url: abonnementUrl(a._id),
      callbackUrl: a.callbackUrl,
      authSet: !!a.auth,
      kanalen: a.kanalen,
      state,
      failingSince: iso(s.failingSince),
      lockedAt: state === 'locked' ? iso(s.lockedAt) : null,
      lockAt: state === 'failing' && s.failingSince ? iso(new Date(new Date(s.failingSince).getTime() + lockAfterMs)) : null,
      unlockedAt: iso(s.unlockedAt),
      unlockedBy: s.unlockedBy ?? null,
      consecutiveFailures: s.consecutiveFailures ?? 0,
      failedAttempts: s.failedAttempts ?? 0,
      delivered: s.delivered ?? 0,
      lastSuccessAt: iso(s.lastSuccessAt),
      lastFailureAt: iso(s.lastFailureAt),
      nextAttemptAt: state === 'failing' ? iso(s.nextAttemptAt) : null,
      lastAttempts: (s.lastAttempts ?? []).map((x) => ({ ...x, at: iso(x.at) })),
    };
  };
  const resendView = (r: ResendDoc) => ({
    id: r._id,
    abonnement: r.abonnement,
    vanaf: iso(r.vanaf),
    tot: iso(r.tot),
    state: r.state,
    requestedAt: iso(r.requestedAt),
    requestedBy: r.requestedBy,
    doneAt: iso(r.doneAt),
    queued: r.queued ?? null,
  });
  const abonnementOr404 = async (uuid: string) => {
    const a = UUID.test(uuid) ? await abonnementen.get(uuid) : null;
    if (!a) throw ZgwError.notFound(`Abonnement ${uuid} bestaat niet.`);
    return a;
  };
  /** The kept notifications of a tenant (the default tenant's include those kept before tenants, without one). */
  const keptOf = (tenant: string): Filter<KeptNotificatie> =>
    (tenant === deps.tenants.defaultTenant ? { [TENANT_FIELD]: { $in: [tenant, null] } } : { [TENANT_FIELD]: tenant }) as Filter<KeptNotificatie>;
  type WithUuid = { Params: { uuid: string } };
  /** Every endpoint here is for an administrator (or a client with all rights). */
  const administrator = (req: FastifyRequest) => adminCaller(deps, req, 'notificaties beheren');

  app.get(`${BASE}/abonnementen`, async (req) => {
    await administrator(req);
    const q = parseOrThrow(PageQuery, req.query ?? {});
    const page = parsePage(q.page);
    const { count, items, ...cont } = await abonnementen.page({}, { page, size: PAGE_SIZE, cursor: q.cursor });
    const byId = new Map((await statuses.find({ _id: { $in: items.map((a) => a._id) } }).toArray()).map((s) => [s._id, s]));
    return envelope(
      `${deps.urls.base}${req.url}`,
      page,
      count,
      items.map((a) => view(a, byId.get(a._id))),
      cont,
    );
  });

  app.get<WithUuid>(`${BASE}/abonnementen/:uuid`, async (req) => {
    await administrator(req);
    const a = await abonnementOr404(req.params.uuid);
    const [s, pending, failed] = await Promise.all([
      statuses.findOne({ _id: a._id }),
      deliveries.count({ abonnement: a._id, state: 'pending' }),
      deliveries.count({ abonnement: a._id, state: 'failed' }),
    ]);
    return { ...view(a, s ?? undefined), undelivered: { pending, failed } };
  });

  app.get<WithUuid>(`${BASE}/abonnementen/:uuid/deliveries`, async (req) => {
    const caller = await administrator(req);
    const a = await abonnementOr404(req.params.uuid);
    const q = parseOrThrow(DeliveriesQuery, req.query ?? {});
    const page = parsePage(q.page);
    const filter = { abonnement: a._id, ...(q.state ? { state: q.state } : {}) };
    const { count, items, ...cont } = await deliveries.page(filter, { page, size: PAGE_SIZE, sort: { createdAt: -1, _id: -1 }, cursor: q.cursor });
    // Kept notifications are kept at platform level: only the tenant's own are shown (a delivery of another tenant's,
    // as a resend across tenants once made, shows its id and kanaal alone).
    const ids = items.map((d) => d.notificatie);
    const messages = new Map((await kept.find({ _id: { $in: ids }, ...keptOf(caller.tenant) }).toArray()).map((k) => [k._id, k]));
    const results = items.map((d) => {
      const m = messages.get(d.notificatie);
      return {
        id: d._id,
        notificatie: { id: d.notificatie, kanaal: d.kanaal, ...(m ? m.message : {}) },
        state: d.state,
        createdAt: iso(d.createdAt),
        tries: d.tries,
        nextAttemptAt: d.state === 'pending' ? iso(d.nextAt) : null,
        deliveredAt: iso(d.deliveredAt),
        resent: !!d.resent,
        attempts: (d.attempts ?? []).map((x) => ({ ...x, at: iso(x.at) })),
      };
    });
    return envelope(`${deps.urls.base}${req.url}`, page, count, results, cont);
  });

  app.post<WithUuid>(`${BASE}/abonnementen/:uuid/unlock`, async (req) => {
    const caller = await administrator(req);
    const a = await abonnementOr404(req.params.uuid);
    const now = new Date();
    const r = await statuses.updateOne(
      { _id: a._id, state: 'locked' },
      {
        $set: {
          state: 'active',
          failingSince: null,
          consecutiveFailures: 0,
          nextAttemptAt: null,
          lockedAt: null,
          unlockedAt: now,
          unlockedBy: caller.clientId,
        },
      },
    );
    if (r.modifiedCount) req.log.info({ abonnement: a._id, by: caller.clientId }, 'abonnement unlocked');
    return view(a, (await statuses.findOne({ _id: a._id })) ?? undefined);
  });

  app.post<WithUuid>(`${BASE}/abonnementen/:uuid/resend`, async (req, reply) => {
    const caller = await administrator(req);
    const a = await abonnementOr404(req.params.uuid);
    const input = parseOrThrow(ResendInput, jsonObject(req.body ?? {}));
    if (input.vanaf && input.tot && input.vanaf > input.tot) throw ZgwError.field('tot', 'invalid', 'tot ligt voor vanaf.');
    if ((await statuses.findOne({ _id: a._id }))?.state === 'locked') {
      throw new ZgwError(
        409,
        'abonnement-locked',
        'Dit abonnement is geblokkeerd: deblokkeer het eerst, dan kunnen notificaties opnieuw verstuurd worden.',
      );
    }
    const doc: ResendDoc = {
      _id: randomUUID(),
      abonnement: a._id,
      vanaf: input.vanaf ?? null,
      tot: input.tot ?? null,
      state: 'requested',
      requestedAt: new Date(),
      requestedBy: caller.clientId,
      doneAt: null,
      queued: null,
    };
    await resends.insertOne(doc);
    req.log.info({ abonnement: a._id, resend: doc._id, by: caller.clientId }, 'resend requested');
    return reply.code(202).send(resendView(doc));
  });

  app.get<WithUuid>(`${BASE}/abonnementen/:uuid/resends`, async (req) => {
    await administrator(req);
    const a = await abonnementOr404(req.params.uuid);
    return (await resends.find({ abonnement: a._id }).sort({ requestedAt: -1, _id: -1 }).limit(20).toArray()).map(resendView);
  });

  app.get<{ Params: { id: string } }>(`${BASE}/resends/:id`, async (req) => {
    await administrator(req);
    const r = UUID.test(req.params.id) ? await resends.findOne({ _id: req.params.id }) : null;
    // a resend of another tenant's abonnement does not exist here (resends are kept at platform level)
    if (!r || !(await abonnementen.get(r.abonnement))) throw ZgwError.notFound(`Verzoek ${req.params.id} bestaat niet.`);
    return resendView(r);
  });

  app.get(`${BASE}/settings`, async (req) => {
    await administrator(req);
    const c = deps.config;
    return {
      lockAfterHours: c.NRC_LOCK_AFTER_HOURS,
      retentionDays: c.NRC_RETENTION_DAYS,
      backoffSeconds: parseBackoff(c.NRC_BACKOFF_SECONDS).map((ms) => ms / 1000),
      timeoutMs: c.NRC_DELIVERY_TIMEOUT_MS,
      abonnementConcurrency: c.NRC_ABONNEMENT_CONCURRENCY,
    };
  });
}
