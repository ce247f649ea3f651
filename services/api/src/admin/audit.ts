import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  AUDIT_EXCLUSIONS_SETTING,
  AUDIT_READS_COLLECTION,
  ensureAuditIndexes,
  exclusionList,
  tenantExclusionsId,
  type StoredReadEntry,
} from '@zgw/shared';
import { SETTINGS_COLLECTION, type ExclusionsSetting } from '../common/audit/audit-reads';
import type { Caller } from '../common/auth/auth';
import type { Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';
import { adminCaller } from './rights';
import { PAGE_SIZE, PageQuery, envelope, parsePage } from '../common/http/pagination';
import { Store } from '../common/storage/store';
import { jsonObject, parseOrThrow } from '../common/http/validation';

/** At most this many exclusions, each at most this long (a client id is short; a list this long is a mistake). */
const MAX_EXCLUSIONS = 500;
const MAX_EXCLUSION_LENGTH = 255;

const ExclusionsInput = z.object({
  clientIds: z
    .array(
      z
        .string()
        .trim()
        .max(MAX_EXCLUSION_LENGTH)
        .refine((s) => s.length > 0, { message: 'Dit veld mag niet leeg zijn.', params: { code: 'blank' } })
        .refine((s) => !s.includes(',') && !/\p{Cc}/u.test(s), {
          message: 'Een client id of patroon bevat geen komma of stuurteken.',
          params: { code: 'invalid' },
        }),
    )
    .max(MAX_EXCLUSIONS),
});

const Moment = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'Verwacht een datum of datum-tijd (ISO 8601).',
    params: { code: 'invalid' },
  })
  .transform((s) => new Date(s).toISOString());

const ReadsQuery = z
  .object({
    clientId: z.string().min(1).optional(),
    hoofdObject: z.string().min(1).optional(),
    vanaf: Moment.optional(),
    tot: Moment.optional(),
  })
  .extend(PageQuery.shape);

/** A stored read entry as the auditor sees it. */
const view = ({ _id, ...rest }: { _id: unknown }) => ({
  uuid: _id,
  ...Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith('_') && k !== 'uuid')),
});

/** The indexes that serve the auditor's two questions: one client's reads, and the reads of one main object, in a period. */
export async function ensureAuditReadsIndexes(deps: Deps): Promise<void> {
  await ensureAuditIndexes(deps.db, AUDIT_READS_COLLECTION, deps.config.AUDIT_READS_RETENTION_DAYS);
}

/**
 * Administration of the audit trail of reads (only callers that may change autorisaties):
 * - `GET/PUT/DELETE /admin/api/v1/audit/exclusions`: the client ids whose reads are not recorded, the list of the
 *   tenant the request acts in. A platform administrator acting in the default tenant (the provider's own) manages
 *   the platform's list, for the reads in every tenant: a stored one replaces AUDIT_EXCLUDE_CLIENT_IDS, DELETE
 *   returns to the environment's. In any other tenant the list is that tenant's own, for the reads made in it only
 *   (so an organisation's administrator excludes its own clients' reads, never another's); its answer shows the
 *   platform's list beside it, read-only. Every instance re-reads the lists every AUDIT_SETTINGS_POLL_MS (this one
 *   applies a change at once); they hold across restarts.
 * - `GET /admin/api/v1/audit/reads?clientId=|hoofdObject=&vanaf=&tot=`: the recorded reads, oldest first, paginated.
 */
export async function registerAuditAdmin(app: FastifyInstance, deps: Deps): Promise<void> {
  const settings = deps.db.collection<ExclusionsSetting>(SETTINGS_COLLECTION);
  const reads = new Store<StoredReadEntry>(deps.db, AUDIT_READS_COLLECTION, () => undefined);
  reads.maxSkip = deps.config.PAGE_SKIP_LIMIT;
  await ensureAuditReadsIndexes(deps);

  const admin = (req: FastifyRequest) => adminCaller(deps, req, 'de audit trail van het lezen beheren en inzien');
  /** The tenant whose own list the caller manages; undefined: the platform's (a platform administrator in the default tenant). */
  const ownListOf = (caller: Caller): string | undefined =>
    caller.platformAdmin && caller.tenant === deps.tenants.defaultTenant ? undefined : caller.tenant;
  const platformList = async () => {
    const doc = await settings.findOne({ _id: AUDIT_EXCLUSIONS_SETTING });
    if (doc) return { clientIds: doc.clientIds, bron: 'beheer', updatedAt: doc.updatedAt, updatedBy: doc.updatedBy };
    return { clientIds: exclusionsFromEnv(deps), bron: 'AUDIT_EXCLUDE_CLIENT_IDS', updatedAt: null, updatedBy: null };
  };
  /** The list the caller manages; a tenant's with the platform's beside it (read-only, for information). */
  const current = async (caller: Caller) => {
    const tenant = ownListOf(caller);
    if (tenant === undefined) return platformList();
    const doc = await settings.findOne({ _id: tenantExclusionsId(tenant) });
    const own = doc
      ? { clientIds: doc.clientIds, bron: 'beheer', updatedAt: doc.updatedAt, updatedBy: doc.updatedBy }
      : { clientIds: [], bron: 'geen', updatedAt: null, updatedBy: null };
    return { ...own, tenant, platform: await platformList() };
  };

  app.get('/admin/api/v1/audit/exclusions', async (req) => current(await admin(req)));
  app.put('/admin/api/v1/audit/exclusions', async (req) => {
    const caller = await admin(req);
    const { clientIds } = parseOrThrow(ExclusionsInput, jsonObject(req.body));
    const unique = [...new Set(clientIds)];
    const tenant = ownListOf(caller);
    const doc = { clientIds: unique, updatedAt: new Date().toISOString(), updatedBy: caller.clientId, ...(tenant === undefined ? {} : { tenant }) };
    await settings.updateOne({ _id: tenant === undefined ? AUDIT_EXCLUSIONS_SETTING : tenantExclusionsId(tenant) }, { $set: doc }, { upsert: true });
    deps.reads?.applyExclusions(unique, tenant);
    req.log.info({ exclusions: unique.length, by: caller.clientId, tenant: tenant ?? 'platform' }, 'audit read exclusions changed');
    return current(caller);
  });
  app.delete('/admin/api/v1/audit/exclusions', async (req, reply) => {
    const caller = await admin(req);
    const tenant = ownListOf(caller);
    await settings.deleteOne({ _id: tenant === undefined ? AUDIT_EXCLUSIONS_SETTING : tenantExclusionsId(tenant) });
    deps.reads?.applyExclusions(undefined, tenant);
    req.log.info(
      { by: caller.clientId, tenant: tenant ?? 'platform' },
      tenant === undefined ? "audit read exclusions reset to the environment's" : "a tenant's audit read exclusions removed",
    );
    return reply.code(204).send();
  });

  app.get('/admin/api/v1/audit/reads', async (req) => {
    await admin(req);
    const q = parseOrThrow(ReadsQuery, req.query ?? {});
    if (!q.clientId === !q.hoofdObject) {
      throw ZgwError.field('nonFieldErrors', 'invalid', 'Geef precies een van clientId en hoofdObject op.');
    }
    if (q.vanaf && q.tot && q.vanaf > q.tot) throw ZgwError.field('tot', 'invalid', 'tot ligt voor vanaf.');
    const period = q.vanaf || q.tot ? { aanmaakdatum: { ...(q.vanaf ? { $gte: q.vanaf } : {}), ...(q.tot ? { $lt: q.tot } : {}) } } : {};
    const filter = { ...(q.clientId ? { clientId: q.clientId } : { hoofdObjecten: q.hoofdObject }), ...period };
    const page = parsePage(q.page);
    const { count, items, ...cont } = await reads.page(filter, { page, size: PAGE_SIZE, sort: { aanmaakdatum: 1, _id: 1 }, cursor: q.cursor });
    return envelope(
      `${deps.urls.base}${req.url}`,
      page,
      count,
      items.map((d) => view(d)),
      cont,
    );
  });
}

function exclusionsFromEnv(deps: Deps): string[] {
  return deps.reads?.environmentExclusions ?? exclusionList(deps.config.AUDIT_EXCLUDE_CLIENT_IDS);
}
