import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from 'mongodb';
import { atPlatformLevel, platformDb, TENANT_FIELD, TENANT_HEADER } from '@zgw/shared';
import type { Deps } from '../common/platform/component';
import { Credentials } from '../common/auth/credentials';
import { ZgwError } from '../common/http/errors';
import { adminCaller } from './rights';
import { TenantRemoval } from './tenant-removal';

/** A tenant as the admin API shows it, with what it holds. */
export interface TenantView {
  rsin: string;
  naam: string;
  aangemaakt: string;
  aantallen: { zaken: number; documenten: number; clients: number };
  /** The bytes of content its documents hold, every version counted (what it costs in storage). */
  opslag: number;
}

/**
 * The tenants of the installation, for platform administrators: `POST` and `GET /admin/api/v1/tenants`; an
 * organisation that leaves: `GET /admin/api/v1/tenants/{rsin}/export` (what to take along first) and
 * `DELETE /admin/api/v1/tenants/{rsin}` with `{"bevestig": "<rsin>"}` (see TenantRemoval).
 */
export async function registerTenantsAdmin(app: FastifyInstance, deps: Deps): Promise<void> {
  const creds = new Credentials(deps.db, deps.pii, deps.tenants.defaultTenant);
  await creds.coll.createIndex({ tenant: 1, _id: 1 });
  const platform = async (req: FastifyRequest) => {
    const caller = await adminCaller(deps, req, 'organisaties beheren');
    if (!caller.platformAdmin) throw ZgwError.forbidden('Alleen beheerders van het platform beheren organisaties.', 'platform-admin');
    return caller;
  };
  app.post('/admin/api/v1/tenants', async (req, reply) => {
    const caller = await platform(req);
    const body = (req.body ?? {}) as { rsin?: unknown; naam?: unknown };
    const tenant = await deps.tenants.add(body.rsin, body.naam);
    req.log.info({ tenant: tenant._id, by: caller.clientId }, 'tenant created');
    return reply.code(201).send(await view(deps, creds, tenant));
  });
  app.get('/admin/api/v1/tenants', async (req) => {
    await platform(req);
    return Promise.all((await deps.tenants.list()).map((t) => view(deps, creds, t)));
  });
  const removal = new TenantRemoval({ ...deps, clearCaches: async (regions) => regions.forEach((r) => deps.caches.clear(r)) });
  // What the organisation takes along before it is erased: each catalogus as a ZIP (with the header naming it).
  app.get<{ Params: { rsin: string } }>('/admin/api/v1/tenants/:rsin/export', async (req) => {
    await platform(req);
    const tenant = await removal.tenant(req.params.rsin);
    const base = deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '');
    const catalogussen = (await removal.catalogussen(tenant._id)).map((uuid) => ({
      uuid,
      url: `${base}/catalogi/api/v1/catalogussen/${uuid}`,
      export: `${base}/admin/api/v1/catalogussen/${uuid}/export`,
    }));
    return { rsin: tenant._id, naam: tenant.naam, headers: { [TENANT_HEADER]: tenant._id }, catalogussen };
  });
  app.delete<{ Params: { rsin: string } }>('/admin/api/v1/tenants/:rsin', async (req) => {
    const caller = await platform(req);
    const tenant = await removal.tenant(req.params.rsin);
    const bevestig = (req.body as { bevestig?: unknown } | undefined)?.bevestig;
    if (bevestig !== tenant._id)
      throw ZgwError.field(
        'bevestig',
        bevestig === undefined ? 'required' : 'invalid',
        `Bevestig het wissen van organisatie ${tenant._id} met {"bevestig": "${tenant._id}"}: alles van haar wordt gewist en is niet terug te halen. Neem eerst haar catalogussen mee (GET /admin/api/v1/tenants/${tenant._id}/export).`,
      );
    req.log.warn({ tenant: tenant._id, by: caller.clientId }, 'tenant removal confirmed');
    return atPlatformLevel(() => removal.remove(tenant._id));
  });
}

/** Counts across tenants (the platform administrators' view): each by the tenant's own index prefix. */
async function view(deps: Deps, creds: Credentials, t: { _id: string; naam: string; createdAt: Date }): Promise<TenantView> {
  const db = platformDb(deps.db);
  const of = { [TENANT_FIELD]: t._id, _tombstone: { $exists: false } };
  const [zaken, documenten, clients, opslag] = await Promise.all([
    db.collection('zaken').countDocuments(of),
    db.collection('enkelvoudiginformatieobjecten').countDocuments(of),
    creds.countFor(t._id),
    storageOf(db, t._id),
  ]);
  return { rsin: t._id, naam: t.naam, aangemaakt: t.createdAt.toISOString(), aantallen: { zaken, documenten, clients }, opslag };
}

/** The content bytes of a tenant's document versions (each version keeps its own content). */
async function storageOf(db: Db, tenant: string): Promise<number> {
  const [sum] = await db
    .collection('enkelvoudiginformatieobject_versies')
    .aggregate<{ bytes: number }>([{ $match: { [TENANT_FIELD]: tenant } }, { $group: { _id: null, bytes: { $sum: '$bestandsomvang' } } }])
    .toArray();
  return sum?.bytes ?? 0;
}
