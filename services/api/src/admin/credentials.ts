import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CREDENTIALS_CACHE } from '../common/auth/auth';
import type { Deps } from '../common/platform/component';
import { ClientOfOtherTenant, Credentials, reservedClientIds } from '../common/auth/credentials';
import { ZgwError } from '../common/http/errors';
import { adminCaller } from './rights';
import { isRsin } from '@zgw/shared';
import { parseOrThrow } from '../common/http/validation';

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
  const creds = new Credentials(deps.db, deps.pii, deps.tenants.defaultTenant, reservedClientIds(deps.config));
  const admin = (req: FastifyRequest) => adminCaller(deps, req, 'credentials beheren');
  app.post('/admin/api/v1/credentials', async (req, reply) => {
    const caller = await admin(req);
    const body = parseOrThrow(CredentialInput, req.body ?? {});
    const tenant = body.tenant ?? caller.tenant;
    // An organisation's administrators register clients of their own organisation; the platform's, of any.
    if (tenant !== caller.tenant && !caller.platformAdmin)
      throw ZgwError.forbidden('Een beheerder registreert alleen clients van de eigen organisatie.', 'platform-admin');
    if (!(await deps.tenants.get(tenant))) throw ZgwError.field('tenant', 'does_not_exist', `Organisatie ${tenant} bestaat niet.`);
    try {
      await creds.set(body.identifier, tenant, body.secret);
    } catch (err) {
      if (err instanceof ClientOfOtherTenant)
        throw ZgwError.field('identifier', 'unique', 'Deze client id is al geregistreerd: client ids zijn uniek op het platform.');
      throw err;
    }
    deps.caches.clear(CREDENTIALS_CACHE);
    req.log.info({ clientId: body.identifier, tenant, by: caller.clientId }, 'credential registered');
    return reply.code(201).send({ identifier: body.identifier, tenant });
  });
  app.get('/admin/api/v1/credentials', async (req) => {
    const caller = await admin(req);
    const clients = await creds.list(caller.platformAdmin ? undefined : caller.tenant);
    return clients.map((c) => ({ identifier: c.clientId, tenant: c.tenant, createdAt: c.createdAt.toISOString() }));
  });
  app.delete<{ Params: { identifier: string } }>('/admin/api/v1/credentials/:identifier', async (req, reply) => {
    const caller = await admin(req);
    // another organisation's client does not exist for an organisation's administrator
    const removed = await creds.remove(req.params.identifier, caller.platformAdmin ? undefined : caller.tenant);
    deps.caches.clear(CREDENTIALS_CACHE);
    if (!removed) throw ZgwError.notFound(`Geen credential voor "${req.params.identifier}".`);
    return reply.code(204).send();
  });
}
