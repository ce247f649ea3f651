import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { custom, errors, generators, Issuer, type BaseClient, type TokenSet } from 'openid-client';
import { isRsin, valueAtPath, type Config, type Logger } from '@zgw/shared';
import { tokenDigest } from './sessions';

/**
 * Administrators signing in through the organisation's OpenID Connect provider: the authorization code flow with
 * PKCE (S256), state and nonce (openid-client). What travels through the provider's redirect (state, nonce, the PKCE
 * verifier, where to go after) is kept in MongoDB under the hash of a random token in a SameSite=Lax cookie, for ten
 * minutes and one use. The role claim is read from the ID token, and from userinfo where the provider has one.
 */

export const OIDC_FLOWS_COLLECTION = 'adminoidcflows';
const FLOW_MINUTES = 10;
/** Administrators from the provider are named `oidc:<name>`: never the same as a local name (which has no colon). */
export const OIDC_USER_PREFIX = 'oidc:';

custom.setHttpOptionsDefaults({ timeout: 5000 });

interface FlowDoc {
  _id: string; // sha256(token), hex
  state: string;
  nonce: string;
  verifier: string;
  next?: string;
  expiresAt: Date;
}

export type OidcResult =
  /**
   * `tenant`: the administrator's organisation; undefined for a platform administrator (ADMIN_OIDC_PLATFORM_ROLES).
   * `organisationOnly`: an administrator of that organisation alone, even when it is the default tenant
   * (ADMIN_OIDC_TENANT_REQUIRED: the platform only by the platform role).
   */
  | { ok: true; user: string; tenant: string | undefined; organisationOnly?: boolean; idToken: string; next?: string }
  | { ok: false; status: number; reason: string; log: Record<string, unknown> };

const listOf = (value: string): Set<string> =>
  new Set(
    value
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean),
  );

/** A role claim as a list: an array of strings, or one string of names separated by spaces or commas. */
function rolesOf(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return undefined;
}

export class AdminOidc {
  private client?: Promise<BaseClient>;
  private readonly flows: Collection<FlowDoc>;
  private readonly roles: Set<string>;
  private readonly platformRoles: Set<string>;
  readonly redirectUri: string;

  constructor(
    private readonly config: Config,
    db: Db,
    private readonly log: Logger,
  ) {
    this.flows = db.collection<FlowDoc>(OIDC_FLOWS_COLLECTION);
    this.roles = listOf(config.ADMIN_OIDC_ROLES);
    this.platformRoles = listOf(config.ADMIN_OIDC_PLATFORM_ROLES);
    this.redirectUri = `${config.PUBLIC_BASE_URL}/admin/oidc/callback`;
  }

  get enabled(): boolean {
    return this.config.ADMIN_OIDC_ISSUER !== '';
  }

  /** The provider's origin (its end-session page is a target of the logout form). */
  get origin(): string {
    return new URL(this.config.ADMIN_OIDC_ISSUER).origin;
  }

  async ensureIndexes(): Promise<void> {
    await this.flows.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
  }

  /** The provider's client, from its discovery document (fetched at the first login, again after a failure). */
  private async provider(): Promise<BaseClient> {
    this.client ??= (async () => {
      const issuer = await Issuer.discover(this.config.ADMIN_OIDC_ISSUER);
      const trim = (u: string) => u.replace(/\/+$/, '');
      if (trim(issuer.metadata.issuer) !== trim(this.config.ADMIN_OIDC_ISSUER)) {
        throw new Error(`the provider calls itself ${issuer.metadata.issuer}, not ${this.config.ADMIN_OIDC_ISSUER}`);
      }
      const secret = this.config.ADMIN_OIDC_CLIENT_SECRET;
      return new issuer.Client({
        client_id: this.config.ADMIN_OIDC_CLIENT_ID,
        ...(secret ? { client_secret: secret } : { token_endpoint_auth_method: 'none' }),
        redirect_uris: [this.redirectUri],
        response_types: ['code'],
      });
    })();
    try {
      return await this.client;
    } catch (err) {
      this.client = undefined;
      throw err;
    }
  }

  /** Starts a login: the provider's authorization URL and the token of the flow cookie. */
  async begin(next: string | undefined): Promise<{ url: string; token: string }> {
    const client = await this.provider();
    const token = randomBytes(32).toString('base64url');
    const flow = { state: generators.state(), nonce: generators.nonce(), verifier: generators.codeVerifier() };
    await this.flows.insertOne({
      _id: tokenDigest(token),
      ...flow,
      ...(next ? { next } : {}),
      expiresAt: new Date(Date.now() + FLOW_MINUTES * 60_000),
    });
    const url = client.authorizationUrl({
      scope: 'openid profile email',
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: generators.codeChallenge(flow.verifier),
      code_challenge_method: 'S256',
    });
    return { url, token };
  }

  /** Completes a login from the provider's redirect: the administrator, or why not. */
  async complete(token: string | undefined, query: Record<string, string>): Promise<OidcResult> {
    const flow = token && token.length <= 100 ? await this.flows.findOneAndDelete({ _id: tokenDigest(token) }) : null;
    if (!flow || flow.expiresAt <= new Date()) {
      return { ok: false, status: 400, reason: 'Deze aanmelding is verlopen of niet hier begonnen. Begin opnieuw.', log: { why: 'no flow' } };
    }
    if (query.error) {
      const detail = query.error_description ? `${query.error}: ${query.error_description}` : query.error;
      return {
        ok: false,
        status: 403,
        reason: `De identity provider weigerde de aanmelding (${detail}).`,
        log: { why: 'provider refused', error: query.error },
      };
    }
    const client = await this.provider();
    let tokens: TokenSet;
    try {
      tokens = await client.callback(this.redirectUri, client.callbackParams(`/?${new URLSearchParams(query).toString()}`), {
        state: flow.state,
        nonce: flow.nonce,
        code_verifier: flow.verifier,
        response_type: 'code',
      });
    } catch (err) {
      if (err instanceof errors.RPError || err instanceof errors.OPError) {
        return {
          ok: false,
          status: 400,
          reason: 'De aanmelding via de identity provider klopt niet (state, nonce of code); begin opnieuw.',
          log: { why: err.message },
        };
      }
      throw err;
    }
    const claims = tokens.claims() as Record<string, unknown>;
    let roles = rolesOf(valueAtPath(claims, this.config.ADMIN_OIDC_ROLE_CLAIM));
    let info: Record<string, unknown> = {};
    if (roles === undefined && client.issuer.metadata.userinfo_endpoint && tokens.access_token) {
      info = (await client.userinfo(tokens)) as Record<string, unknown>;
      roles = rolesOf(valueAtPath(info, this.config.ADMIN_OIDC_ROLE_CLAIM));
    }
    const name = [claims.preferred_username, claims.email, claims.sub].find((v): v is string => typeof v === 'string' && v !== '')!;
    const user = `${OIDC_USER_PREFIX}${name.slice(0, 100)}`;
    const done = { ok: true as const, user, idToken: tokens.id_token!, ...(flow.next ? { next: flow.next } : {}) };
    if (roles?.some((r) => this.platformRoles.has(r))) return { ...done, tenant: undefined };
    if (!roles?.some((r) => this.roles.has(r))) {
      return {
        ok: false,
        status: 403,
        reason: `U bent aangemeld als ${name}, maar dat account heeft geen beheerrechten voor dit platform: het mist de rol ${[...this.roles].join(' of ')} (claim ${this.config.ADMIN_OIDC_ROLE_CLAIM}; voor het hele platform: ${[...this.platformRoles].join(' of ')}). Vraag die rol aan bij de beheerder van de identity provider.`,
        log: { why: 'no admin role', sub: claims.sub },
      };
    }
    // An organisation's administrator: of the organisation in the tenant claim (none: the default tenant's, unless
    // ADMIN_OIDC_TENANT_REQUIRED: an installation shared by organisations, where the default tenant runs the platform).
    const required = this.config.ADMIN_OIDC_TENANT_REQUIRED === 'true';
    const named = valueAtPath(claims, this.config.ADMIN_OIDC_TENANT_CLAIM) ?? valueAtPath(info, this.config.ADMIN_OIDC_TENANT_CLAIM);
    if (named === undefined && required) {
      return {
        ok: false,
        status: 403,
        reason: `U bent aangemeld als ${name}, maar de claim ${this.config.ADMIN_OIDC_TENANT_CLAIM} noemt geen organisatie, en dit platform bedient er meer dan één. Vraag de beheerder van de identity provider die in te vullen.`,
        log: { why: 'no tenant claim', code: 'tenant-unknown', sub: claims.sub },
      };
    }
    if (named === undefined) return { ...done, tenant: this.config.ZGW_DEFAULT_TENANT };
    if (!isRsin(named)) {
      return {
        ok: false,
        status: 403,
        reason: `U bent aangemeld als ${name}, maar de claim ${this.config.ADMIN_OIDC_TENANT_CLAIM} noemt geen organisatie (een RSIN). Vraag de beheerder van de identity provider die in te vullen.`,
        log: { why: 'tenant claim is no RSIN', sub: claims.sub },
      };
    }
    return { ...done, tenant: named, ...(required ? { organisationOnly: true } : {}) };
  }

  /** Where the browser goes to sign out at the provider too, when it offers that (else undefined). */
  async endSessionUrl(idToken: string, after: string): Promise<string | undefined> {
    try {
      const client = await this.provider();
      if (!client.issuer.metadata.end_session_endpoint) return undefined;
      return client.endSessionUrl({ id_token_hint: idToken, post_logout_redirect_uri: after });
    } catch (err) {
      this.log.warn({ err }, 'the identity provider is not reachable: signed out here only');
      return undefined;
    }
  }
}
