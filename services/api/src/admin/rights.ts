import type { FastifyRequest } from 'fastify';
import { TENANT_HEADER } from '@zgw/shared';
import type { Caller } from '../common/auth/auth';
import type { Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';

/**
 * Who may use the admin endpoints: a client that may change autorisaties. The one place that decides it (the admin
 * screens call the same endpoints); `what` completes the refusal ("Alleen beheerders ... mogen <what>.").
 */
export async function adminCaller(deps: Deps, req: FastifyRequest, what: string): Promise<Caller> {
  const caller = await deps.auth.authenticate(req);
  if (!caller.hasScope('autorisaties.bijwerken')) throw ZgwError.forbidden(`Alleen beheerders met autorisaties.bijwerken mogen ${what}.`);
  return caller;
}

/**
 * The tenant an admin request acts in: an organisation's administrator's own; a platform administrator's own (the
 * screens: the one chosen in the session), or the one named in header `Zgw-Tenant` (unknown: 403 tenant-unknown).
 */
export async function actingWithin(deps: Deps, req: FastifyRequest, caller: Caller): Promise<Caller> {
  const named = req.headers[TENANT_HEADER];
  if (typeof named !== 'string' || named === '' || named === caller.tenant) return caller;
  if (!caller.platformAdmin)
    throw ZgwError.forbidden(`Alleen beheerders van het platform handelen voor een andere organisatie (header ${TENANT_HEADER}).`, 'platform-admin');
  if (!(await deps.tenants.get(named))) throw ZgwError.forbidden(`Organisatie ${named} bestaat niet.`, 'tenant-unknown');
  return caller.within(named);
}
