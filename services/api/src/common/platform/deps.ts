import type { Db } from 'mongodb';
import { createKafka, piiFromConfig, type Config, type Logger, type Pii } from '@zgw/shared';
import { ReadAudit } from '../audit/audit-reads';
import { Authenticator } from '../auth/auth';
import { Credentials, TRANSFER_LABEL } from '../auth/credentials';
import { OidcTokens } from '../auth/oidc-tokens';
import { RateLimiter, parseRateLimit } from '../auth/rate-limit';
import { Caches } from '../storage/cache';
import { ExternalSystems } from './external-systems';
import type { OutboxRelay } from '../storage/relay';
import { RenderCache } from '../resources/render-cache';
import { Tenants } from '../auth/tenants';
import { TemporalClient } from './temporal';
import { Urls } from '../http/urls';

/**
 * What each component offers the others, by component name. Empty here: each entry is declared (by declaration
 * merging) beside its interface, so this module depends on none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Components {}

/** What every component gets from the platform. */
export interface Deps {
  config: Config;
  db: Db;
  urls: Urls;
  log: Logger;
  auth: Authenticator;
  /** The organisations this installation serves (common/auth/tenants.ts). */
  tenants: Tenants;
  caches: Caches;
  /** The JSON texts of objects as the API shows them, by their stored bytes (common/resources/render-cache.ts). */
  renders: RenderCache;
  /** Seals and opens personal identifiers at rest, and gives their search hashes (common/resources/pii-fields.ts). */
  pii: Pii;
  relay?: OutboxRelay;
  /** The audit trail of reads (audited components record every successful read here). */
  reads?: ReadAudit;
  /**
   * The API's one connection to Temporal, for the side of each transfer feature that starts, signals and asks its
   * workflows (connects on first use; closed with the app).
   */
  temporal: TemporalClient;
  /** Fetches a JSON document from another service (selectielijst, external references). */
  fetchJson: (url: string) => Promise<{ status: number; body: unknown }>;
  /**
   * What a component offers the components mounted after it (Catalogi for Zaken, ...), by component name: each
   * entry's interface lives in common/platform/links.ts or, when only the platform's own screens use it, in its component.
   */
  components: Partial<Components>;
}

/**
 * Fetches JSON with a timeout; network failures come back as status 0. A URL of a registered external ZGW system
 * is read with that system's credentials (see ExternalSystems).
 */
export function jsonFetcher(systems?: ExternalSystems, log?: Logger): (url: string) => Promise<{ status: number; body: unknown }> {
  return async (url) => {
    // (what the logs name: never the query, which may hold a BSN)
    const path = url.split('?')[0];
    try {
      const authorization = await systems?.authorization(url).catch((err: Error) => {
        log?.warn({ url: path, err }, 'the credentials of an external system could not be read: the request goes without them');
        return undefined;
      });
      const headers: Record<string, string> = {
        Accept: 'application/json',
        'Accept-Crs': 'EPSG:4326',
        ...(authorization ? { Authorization: authorization } : {}),
      };
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: res.status, body };
    } catch (err) {
      // (the caller answers with what it means for the request; the cause is kept here, where only the log sees it)
      log?.warn({ url: path, err }, 'a reference could not be read: no answer (timeout, refused or unreachable)');
      return { status: 0, body: undefined };
    }
  };
}

export function createDeps(config: Config, db: Db, log: Logger, relay?: OutboxRelay): Deps {
  const caches = new Caches(config.CACHE_TTL_MS);
  const pii = piiFromConfig(config, log);
  const tenants = new Tenants(db, config.ZGW_DEFAULT_TENANT);
  const components: Partial<Components> = {};
  const fetched = jsonFetcher(new ExternalSystems(db, pii), log);
  return {
    config,
    caches,
    renders: new RenderCache(config.RENDER_CACHE_MB * 1024 * 1024),
    pii,
    db,
    log,
    relay,
    urls: new Urls(config.PUBLIC_BASE_URL),
    tenants,
    temporal: new TemporalClient(config, pii),
    auth: new Authenticator(
      db,
      new Credentials(db, pii, config.ZGW_DEFAULT_TENANT),
      tenants,
      { name: config.OIDC_API_TENANT_CLAIM, required: config.OIDC_API_TENANT_REQUIRED === 'true' },
      { clientId: config.TRANSFER_CLIENT_ID, label: TRANSFER_LABEL, secret: config.TRANSFER_SECRET },
      config.JWT_LEEWAY_SECONDS,
      caches,
      config.OIDC_API_ISSUER ? new OidcTokens(config.OIDC_API_ISSUER, config.OIDC_API_AUDIENCE, config.OIDC_API_LEEWAY_SECONDS) : undefined,
      new RateLimiter(parseRateLimit(config.RATE_LIMIT), config.RATE_LIMIT_INSTANCES),
    ),
    reads: new ReadAudit(config, db, log, createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-api-reads`)),
    // The referentielijsten this platform serves (its own base and the aliases) answer in process; the rest is fetched.
    fetchJson: async (url) => components.referentielijsten?.answer(url) ?? fetched(url),
    components,
  };
}
