import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Caller } from '../../common/auth/auth';
import type { ComponentApi, Deps } from '../../common/platform/component';
import type { Session, SessionRole } from './sessions';

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin session of a request to the admin screens (set by their guard). */
    adminSession?: Session;
  }
  interface FastifyContextConfig {
    /** An admin screen route that needs no session (login, static files). */
    adminPublic?: boolean;
  }
}

/** What the admin screens share: the platform's dependencies, the root app (for its admin JSON endpoints), the APIs. */
export interface AdminUi {
  deps: Deps;
  root: FastifyInstance;
  /** The mounted components (filled once they are mounted; read at request time). */
  apis: readonly ComponentApi[];
}

/**
 * How an administrator acts towards the platform: a caller with all rights within the session's tenant (their own
 * organisation's, or the one a platform administrator chose), named after the administrator.
 */
export function sessionCaller(session: Session): Caller {
  const { user } = session;
  return new Caller(`beheer:${user}`, user, user, { label: 'Beheer', heeftAlleAutorisaties: true }, session.tenant, session.platform);
}

/**
 * The role of an administrator of `tenant` (undefined: of the platform). The default tenant is the provider's own
 * organisation: its administrators run the platform, as its API clients do; unless `organisationOnly` (a login through
 * the identity provider with ADMIN_OIDC_TENANT_REQUIRED, where only the platform role makes a platform administrator).
 */
export function roleOf(tenant: string | undefined, defaultTenant: string, organisationOnly = false): SessionRole {
  return { tenant: tenant ?? defaultTenant, platform: tenant === undefined || (!organisationOnly && tenant === defaultTenant) };
}

export function sessionOf(req: FastifyRequest): Session {
  if (!req.adminSession) throw new Error('admin route without a session');
  return req.adminSession;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/**
 * Calls one of the platform's admin JSON endpoints (/admin/api/v1/...) in-process, as the administrator of this
 * request: the session cookie and its CSRF token go along, so the endpoint checks them as it would a browser's.
 */
export async function callAdminApi(
  ui: AdminUi,
  req: FastifyRequest,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const session = sessionOf(req);
  const res = await ui.root.inject({
    method,
    url,
    headers: {
      cookie: req.headers.cookie ?? '',
      'x-csrf-token': session.csrf,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  let parsed: unknown;
  try {
    parsed = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, body: parsed };
}

/** The messages of a ZGW problem answer, for the page: each invalid parameter, else the detail. */
export function problemMessages(answer: ApiAnswer, label: (name: string) => string = (n) => n): string[] {
  const body = (answer.body ?? {}) as { detail?: unknown; invalidParams?: { name?: unknown; reason?: unknown }[] };
  if (Array.isArray(body.invalidParams) && body.invalidParams.length) {
    return body.invalidParams.map((p) => `${label(String(p.name ?? ''))}: ${String(p.reason ?? '')}`);
  }
  return [typeof body.detail === 'string' ? body.detail : `De aanvraag mislukte (HTTP ${answer.status}).`];
}
