import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CREDENTIALS_CACHE } from '../common/auth';
import type { Deps } from '../common/component';
import { Credentials } from '../common/credentials';
import { ZgwError } from '../common/errors';
import { adminCaller } from './rights';
import { isPlatformAdmin } from './tenants';
import { isRsin } from '@zgw/shared';
import { parseOrThrow } from '../common/validation';

const CredentialInput = z.object({
  identifier: z.string().min(1).max(50),
  secret: z.string().min(8).max(255),
  /** The RSIN of the client's tenant (default: the administrator's own). */
  tenant: z.string().refine(isRsin, 'Een RSIN is negen cijfers die de elfproef doorstaan.').optional(),
});

/**
 * Credential management over HTTP, for administrators and provisioning tools (a token issuer hands a client's
 * secret to the platform here). Only callers that may change autorisaties may use it; secrets are never returned.
 */
export async function registerCredentialAdmin(app: FastifyInstance, deps: Deps): Promise<void> {
  const creds = new Credentials(deps.db, deps.pii);
  const admin = (req: FastifyRequest) => adminCaller(deps, req, 'credentials beheren');
  app.post('/admin/api/v1/credentials', async (req, reply) => {
    const caller = await admin(req);
    const body = parseOrThrow(CredentialInput, req.body ?? {});
    const own = caller.tenant ?? deps.tenants.defaultTenant;
    const tenant = body.tenant ?? own;
    // An organisation's administrators register clients of their own organisation; the platform's, of any.
    if (tenant !== own && !isPlatformAdmin(deps, caller))
      throw ZgwError.forbidden('Een beheerder registreert alleen clients van de eigen organisatie.', 'platform-admin');
    if (!(await deps.tenants.get(tenant))) throw ZgwError.field('tenant', 'does_not_exist', `Organisatie ${tenant} bestaat niet.`);
    const existing = await creds.lookup(body.identifier);
    if (existing && (existing.tenant ?? deps.tenants.defaultTenant) !== tenant)
      throw ZgwError.field('identifier', 'unique', 'Deze client id is al geregistreerd: client ids zijn uniek op het platform.');
    await creds.set(body.identifier, body.secret, tenant === deps.tenants.defaultTenant ? existing?.tenant : tenant);
    deps.caches.clear(CREDENTIALS_CACHE);
    req.log.info({ clientId: body.identifier, tenant, by: caller.clientId }, 'credential registered');
    return reply.code(201).send({ identifier: body.identifier, tenant });
  });
  app.get('/admin/api/v1/credentials', async (req) => {
    const caller = await admin(req);
    const own = caller.tenant ?? deps.tenants.defaultTenant;
    const all = isPlatformAdmin(deps, caller);
    return (await creds.list())
      .map((c) => ({ identifier: c.clientId, tenant: c.tenant ?? deps.tenants.defaultTenant, createdAt: c.createdAt.toISOString() }))
      .filter((c) => all || c.tenant === own);
  });
  app.delete<{ Params: { identifier: string } }>('/admin/api/v1/credentials/:identifier', async (req, reply) => {
    const caller = await admin(req);
    const tenant = (await creds.tenantOf(req.params.identifier)) ?? deps.tenants.defaultTenant;
    // another organisation's client does not exist for an organisation's administrator
    if (tenant !== (caller.tenant ?? deps.tenants.defaultTenant) && !isPlatformAdmin(deps, caller))
      throw ZgwError.notFound(`Geen credential voor "${req.params.identifier}".`);
    const removed = await creds.remove(req.params.identifier);
    deps.caches.clear(CREDENTIALS_CACHE);
    if (!removed) throw ZgwError.notFound(`Geen credential voor "${req.params.identifier}".`);
    return reply.code(204).send();
  });
}
