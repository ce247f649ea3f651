import type { FastifyRequest } from 'fastify';
import type { Caller } from '../common/auth';
import type { Deps } from '../common/component';
import { ZgwError } from '../common/errors';

/**
 * Who may use the admin endpoints: a client that may change autorisaties. The one place that decides it (the admin
 * screens call the same endpoints); `what` completes the refusal ("Alleen beheerders ... mogen <what>.").
 */
export async function adminCaller(deps: Deps, req: FastifyRequest, what: string): Promise<Caller> {
  const caller = await deps.auth.authenticate(req);
  if (!caller.hasScope('autorisaties.bijwerken')) throw ZgwError.forbidden(`Alleen beheerders met autorisaties.bijwerken mogen ${what}.`);
  return caller;
}
