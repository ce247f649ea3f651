import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CREDENTIALS_CACHE } from '../common/auth';
import type { Deps } from '../common/component';
import { Credentials } from '../common/credentials';
import { ZgwError } from '../common/errors';
import { adminCaller } from './rights';
import { parseOrThrow } from '../common/validation';

const CredentialInput = z.object({
  identifier: z.string().min(1).max(50),
  secret: z.string().min(8).max(255),
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
    await creds.set(body.identifier, body.secret);
    deps.caches.clear(CREDENTIALS_CACHE);
    req.log.info({ clientId: body.identifier, by: caller.clientId }, 'credential registered');
    return reply.code(201).send({ identifier: body.identifier });
  });
  app.get('/admin/api/v1/credentials', async (req) => {
    await admin(req);
    return (await creds.list()).map((c) => ({ identifier: c.clientId, createdAt: c.createdAt.toISOString() }));
  });
  app.delete<{ Params: { identifier: string } }>('/admin/api/v1/credentials/:identifier', async (req, reply) => {
    await admin(req);
    const removed = await creds.remove(req.params.identifier);
    deps.caches.clear(CREDENTIALS_CACHE);
    if (!removed) throw ZgwError.notFound(`Geen credential voor "${req.params.identifier}".`);
    return reply.code(204).send();
  });
}
