import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { secureOrLocal } from '@zgw/shared';
import { ZgwError } from '../http/errors';

/** The signatures an identity provider's API tokens may carry (never `none`, never a shared secret). */
export const OIDC_ALGORITHMS = ['RS256', 'ES256'];
const FETCH_TIMEOUT_MS = 5_000;

/**
 * API tokens issued by the organisation's OpenID Connect provider (OIDC_API_ISSUER), beside the ZGW HS256 tokens:
 * RS256 or ES256, verified with the provider's keys (discovery, then its `jwks_uri`; jose keeps the keys and fetches
 * them again when a token names a key it does not know, at most once per `cooldownMs`), for OIDC_API_AUDIENCE. The
 * client is the token's `client_id` (or `azp`); from there a caller is what it is for an HS256 token.
 */
export class OidcTokens {
  private jwks?: Promise<ReturnType<typeof createRemoteJWKSet>>;

  constructor(
    readonly issuer: string,
    private readonly audience: string,
    private readonly leewaySeconds: number,
    private readonly cooldownMs = 5_000,
  ) {}

  /** The verified claims and the client they name; a ZgwError (401/403, or 503 without the provider) otherwise. */
  async verify(token: string): Promise<{ clientId: string; payload: JWTPayload }> {
    const jwks = await this.keys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: OIDC_ALGORITHMS,
        clockTolerance: this.leewaySeconds,
      }));
    } catch (err) {
      throw ZgwError.forbidden(`Het JWT is ongeldig (${reason(err)}).`, 'jwt-invalid');
    }
    const clientId = String(payload.client_id ?? payload.azp ?? '');
    if (!clientId) throw ZgwError.unauthorized('Het JWT bevat geen client_id of azp claim.', 'jwt-missing-client-id');
    return { clientId, payload };
  }

  /** The provider's key set, from its discovery document (read once; read again after a failure). */
  private keys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.jwks ??= this.discover().catch((err: unknown) => {
      this.jwks = undefined;
      throw err;
    });
    return this.jwks;
  }

  private async discover(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const url = `${this.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      doc = (await res.json()) as typeof doc;
    } catch (err) {
      throw new ZgwError(503, 'oidc-unavailable', `De identity provider (${this.issuer}) is niet bereikbaar: ${(err as Error).message}.`);
    }
    if (doc.issuer !== this.issuer || typeof doc.jwks_uri !== 'string' || !secureOrLocal(doc.jwks_uri)) {
      throw new ZgwError(503, 'oidc-unavailable', `De identity provider geeft een ongeldig discovery-document (issuer of jwks_uri).`);
    }
    return createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS, cooldownDuration: this.cooldownMs });
  }
}

/** Why a token was refused, in the problem's detail (never the token). */
function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'verlopen';
  if (err instanceof errors.JWTClaimValidationFailed) return `claim ${err.claim}: ${err.reason}`;
  if (err instanceof errors.JWKSNoMatchingKey) return 'onbekende sleutel';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'algoritme niet toegestaan';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'handtekening klopt niet';
  if (err instanceof errors.JWKSTimeout) return 'sleutels van de identity provider niet op tijd';
  return err instanceof errors.JOSEError ? err.code : 'ongeldig';
}
