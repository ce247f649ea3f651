import { createDecoder, createVerifier, TokenError } from 'fast-jwt';
import type { FastifyRequest } from 'fastify';
import type { Db } from 'mongodb';
import type { CacheRegion, Caches } from '../storage/cache';
import { ZgwError } from '../http/errors';
import type { Credentials } from './credentials';
import { OIDC_ALGORITHMS, type OidcTokens } from './oidc-tokens';
import { RATE_LIMITS_COLLECTION, parseRateLimit, rateHeaders, type RateLimitOverride, type RateLimiter, type RateRule } from './rate-limit';
import { LIVE } from '../storage/store';
import type { Tenants } from './tenants';
import { inTenant, isRsin, TENANT_HEADER } from '@zgw/shared';
import { vertrouwelijkheidRank } from './vertrouwelijkheid';

export interface Autorisatie {
  component: string;
  scopes: string[];
  zaaktype?: string;
  informatieobjecttype?: string;
  besluittype?: string;
  maxVertrouwelijkheidaanduiding?: string;
}

export interface ApplicatieRights {
  /** The applicatie's label (how the audit trail names the client); not a right. */
  label?: string;
  /** The applicatie's own rate limit (set on its admin screen, parsed when its rights are loaded), in place of RATE_LIMIT. */
  rateRule?: RateRule;
  heeftAlleAutorisaties?: boolean;
  alleenIsGereedVoorPublicatie?: boolean;
  autorisaties?: Autorisatie[];
}

/** Who is calling and what the Autorisaties data lets them do; read live on every request. */
export class Caller {
  constructor(
    readonly clientId: string,
    readonly userId: string,
    readonly userRepresentation: string,
    readonly rights: ApplicatieRights,
    /** The RSIN of the tenant the caller acts for. */
    readonly tenant: string,
    /**
     * A platform administrator (the admin endpoints' rights across tenants): an administrator of the default tenant,
     * or an administrator of the screens without an organisation of their own.
     */
    readonly platformAdmin = false,
    /** The platform's own worker (TRANSFER_CLIENT_ID) acting within the tenant it named: all rights there, none beyond. */
    readonly worker = false,
  ) {}

  /** The platform itself, acting within a tenant (finishing a create, reading what a caller may already see). */
  static system(tenant: string): Caller {
    return new Caller('system', 'system', 'Platform', { heeftAlleAutorisaties: true }, tenant);
  }

  /** The same caller acting within another tenant (a platform administrator naming the tenant of an admin request). */
  within(tenant: string): Caller {
    return new Caller(this.clientId, this.userId, this.userRepresentation, this.rights, tenant, this.platformAdmin, this.worker);
  }

  get all(): boolean {
    return this.rights.heeftAlleAutorisaties === true;
  }

  hasScope(scope: string): boolean {
    return this.all || (this.rights.autorisaties ?? []).some((a) => a.scopes.includes(scope));
  }

  hasAnyScope(scopes: readonly string[]): boolean {
    return scopes.some((s) => this.hasScope(s));
  }

  /**
   * Whether an object of `type` with `vertrouwelijkheid` may be handled under `scope` in `component`
   * (type field: zaaktype, informatieobjecttype or besluittype).
   */
  allows(
    component: string,
    scope: string,
    typeField: 'zaaktype' | 'informatieobjecttype' | 'besluittype',
    type: string,
    vertrouwelijkheid?: string,
  ): boolean {
    if (this.all) return true;
    return (this.rights.autorisaties ?? []).some(
      (a) =>
        a.component === component &&
        a.scopes.includes(scope) &&
        a[typeField] === type &&
        (vertrouwelijkheid === undefined ||
          vertrouwelijkheidRank(vertrouwelijkheid) <= vertrouwelijkheidRank(a.maxVertrouwelijkheidaanduiding ?? 'openbaar')),
    );
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /**
     * The caller of an admin screen or endpoint, acting in its tenant (an administrator's session, or a token
     * authenticated once by the admin hook).
     */
    adminCaller?: Caller;
    /** The RateLimit headers of this request's client (set when a rate limit applies to it), sent with the response. */
    rateHeaders?: Record<string, string>;
  }
}

const decode = createDecoder({ complete: true });

/** Regions of the read cache that authentication uses; writes to credentials or applicaties clear them. */
export const CREDENTIALS_CACHE = 'credentials';
export const AUTORISATIES_CACHE = 'autorisaties';
/** Which tenants exist (only known ones are kept): creating a tenant needs no clearing. */
export const TENANTS_CACHE = 'tenants';

type Verify = (token: string) => Record<string, unknown>;

/** A client's verifier with the tenant it belongs to. */
interface Known {
  verify: Verify;
  tenant: string;
}

/**
 * Authenticates a request and loads the caller's rights. Secrets (with their verifier) and applicaties are read
 * through the cache; any write to either clears it here at once and in other instances through the broadcast, so
 * a changed applicatie governs the next request.
 */
export class Authenticator {
  private readonly verifiers: CacheRegion<Known | null>;
  private readonly applicaties: CacheRegion<ApplicatieRights>;
  private readonly known: CacheRegion<boolean>;
  /** The worker's verifier (TRANSFER_SECRET); none without the secret. */
  private readonly workerVerify?: Verify;

  constructor(
    private readonly db: Db,
    private readonly credentials: Credentials,
    private readonly tenants: Tenants,
    /**
     * The claim of an identity provider's token that names the tenant (OIDC_API_TENANT_CLAIM), and whether a token
     * without it is refused (OIDC_API_TENANT_REQUIRED) rather than the default tenant's.
     */
    private readonly tenantClaim: { name: string; required: boolean },
    /**
     * The platform's own worker (TRANSFER_CLIENT_ID): it names the tenant it acts for on each call (TENANT_HEADER) and
     * has all rights within that tenant only. Its tokens are signed with TRANSFER_SECRET (`secret`) and nothing else,
     * whatever the credential store holds; without a secret no token is the worker's.
     */
    private readonly worker: { clientId: string; label: string; secret: string },
    private readonly leewaySeconds: number,
    caches: Caches,
    /** API tokens of the organisation's identity provider (OIDC_API_ISSUER), when configured. */
    private readonly oidc?: OidcTokens,
    /** Requests per client: RATE_LIMIT, or an applicatie's own limit. */
    readonly limiter?: RateLimiter,
  ) {
    this.verifiers = caches.region(CREDENTIALS_CACHE);
    this.applicaties = caches.region(AUTORISATIES_CACHE);
    this.known = caches.region(TENANTS_CACHE);
    this.workerVerify = worker.secret
      ? (createVerifier({ key: worker.secret, algorithms: ['HS256'], clockTolerance: leewaySeconds * 1000 }) as Verify)
      : undefined;
  }

  async authenticate(req: FastifyRequest): Promise<Caller> {
    if (req.adminCaller) return req.adminCaller;
    const header = req.headers.authorization;
    if (!header) throw ZgwError.unauthorized('Authenticatiegegevens zijn niet opgegeven: stuur een Authorization: Bearer <JWT> header.');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw ZgwError.unauthorized('De Authorization header moet de vorm "Bearer <JWT>" hebben.');
    const token = match[1]!;
    let claims: Record<string, unknown>;
    let jose: Record<string, unknown>;
    try {
      ({ payload: claims, header: jose } = decode(token) as { payload: Record<string, unknown>; header: Record<string, unknown> });
    } catch {
      throw ZgwError.unauthorized('Het JWT kan niet gelezen worden.', 'jwt-invalid');
    }
    // A token signed with a key pair is the identity provider's; any other is a ZGW token signed with a client's secret.
    const byProvider = !!this.oidc && OIDC_ALGORITHMS.includes(String(jose.alg));
    const verified = byProvider ? await this.verifyOidc(token) : await this.verifyHs256(token, claims, jose);
    const { clientId, payload } = verified;
    // Only the worker's own HS256 token (signed with TRANSFER_SECRET: verifyHs256) may name the tenant it acts for.
    const named = req.headers[TENANT_HEADER];
    const acting = !byProvider && clientId === this.worker.clientId && typeof named === 'string' && named !== '';
    const tenant = acting ? named : verified.tenant;
    const iat = Number(payload.iat);
    if (Number.isFinite(iat) && iat * 1000 > Date.now() + this.leewaySeconds * 1000) {
      throw ZgwError.forbidden('Het JWT is uitgegeven in de toekomst (iat).', 'jwt-invalid');
    }
    // Nothing of a tenant is read before the tenant is known to exist.
    if (
      !(await this.known.getOrLoad(
        tenant,
        async () => !!(await this.tenants.get(tenant)),
        (ok) => ok,
      ))
    )
      throw ZgwError.forbidden(`De client hoort bij geen bekende organisatie (tenant ${tenant}).`, 'tenant-unknown');
    // A client's rights and its rate-limit window are its tenant's (an identity provider's client may serve several).
    const rights = acting
      ? { label: this.worker.label, heeftAlleAutorisaties: true }
      : await this.applicaties.getOrLoad(`${tenant} ${clientId}`, () => inTenant(tenant, () => this.rightsOf(clientId)));
    const state = this.limiter?.take(`${tenant} ${clientId}`, rights.rateRule);
    if (state) {
      req.rateHeaders = rateHeaders(state);
      if (!state.allowed) {
        throw new ZgwError(
          429,
          'throttled',
          `Te veel verzoeken van client "${clientId}": probeer het over ${state.resetSeconds} s opnieuw.`,
          undefined,
          req.rateHeaders,
        );
      }
    }
    // The default tenant is the provider's own organisation: its administrators (autorisaties.bijwerken) run the platform.
    const platformAdmin = !acting && tenant === this.tenants.defaultTenant;
    return new Caller(clientId, String(payload.user_id ?? ''), String(payload.user_representation ?? ''), rights, tenant, platformAdmin, acting);
  }

  /** The rights of the client's applicatie, read within its tenant. */
  private async rightsOf(clientId: string): Promise<ApplicatieRights> {
    const app = await this.db
      .collection('applicaties')
      .findOne(
        { clientIds: clientId, ...LIVE },
        { projection: { _id: 1, label: 1, heeftAlleAutorisaties: 1, alleenIsGereedVoorPublicatie: 1, autorisaties: 1 } },
      );
    if (!app) return { autorisaties: [] };
    const { _id, ...found } = app;
    const override = this.limiter && (await this.db.collection<RateLimitOverride>(RATE_LIMITS_COLLECTION).findOne({ _id: String(_id) }));
    return { ...found, ...(override ? { rateRule: parseRateLimit(override.rule) } : {}) } as ApplicatieRights;
  }

  /**
   * An identity provider's token: its tenant is the one its claim names (OIDC_API_TENANT_CLAIM); without the claim the
   * default tenant's, or refused when OIDC_API_TENANT_REQUIRED (an installation shared by organisations, where the
   * default tenant's clients run the platform). The worker's client id is never the provider's to give.
   */
  private async verifyOidc(token: string): Promise<{ clientId: string; payload: Record<string, unknown>; tenant: string }> {
    const { clientId, payload } = await this.oidc!.verify(token);
    if (clientId === this.worker.clientId) throw unknownClient(clientId);
    const { name, required } = this.tenantClaim;
    const claim = payload[name];
    if (claim === undefined && required) throw ZgwError.forbidden(`Het JWT noemt geen organisatie (claim ${name}).`, 'tenant-unknown');
    if (claim !== undefined && !isRsin(claim)) throw ZgwError.forbidden(`De claim ${name} is geen RSIN.`, 'tenant-unknown');
    return { clientId, payload, tenant: claim ?? this.tenants.defaultTenant };
  }

  /** A ZGW token: HS256 with the secret of the client it names. */
  private async verifyHs256(
    token: string,
    claims: Record<string, unknown>,
    header: Record<string, unknown>,
  ): Promise<{ clientId: string; payload: Record<string, unknown>; tenant: string }> {
    const clientId = String(claims.client_id ?? header.client_identifier ?? claims.iss ?? '');
    if (!clientId) throw ZgwError.unauthorized('Het JWT bevat geen client_id claim.', 'jwt-missing-client-id');
    // The worker's client id: TRANSFER_SECRET alone signs its tokens (the default tenant's client); without it, unknown.
    const known =
      clientId === this.worker.clientId
        ? this.workerVerify && { verify: this.workerVerify, tenant: this.tenants.defaultTenant }
        : await this.verifierFor(clientId);
    if (!known) throw unknownClient(clientId);
    try {
      return { clientId, payload: known.verify(token), tenant: known.tenant };
    } catch (err) {
      const reason = err instanceof TokenError ? err.code : 'invalid';
      throw ZgwError.forbidden(`Het JWT is ongeldig (${reason}).`, 'jwt-invalid');
    }
  }

  /** The HS256 verifier of a client's secret and its tenant; unknown clients are not cached, so a new one works at once. */
  private async verifierFor(clientId: string): Promise<Known | null> {
    return this.verifiers.getOrLoad(
      clientId,
      async () => {
        const found = await this.credentials.lookup(clientId);
        if (!found) return null;
        const verify = createVerifier({ key: found.secret, algorithms: ['HS256'], clockTolerance: this.leewaySeconds * 1000 }) as Verify;
        return { verify, tenant: found.tenant };
      },
      (v) => v !== null,
    );
  }
}

const unknownClient = (clientId: string) => ZgwError.forbidden(`Client id "${clientId}" is onbekend.`, 'missing-credentials');
