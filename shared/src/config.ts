import { z } from 'zod';
import { isRsin } from './tenant';

/** Every environment variable the platform reads, with its default. docs/configuration.md documents each one (scripts/docs-check.js). */
const schema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  PUBLIC_BASE_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * How `npm start` shows the services' lines (scripts/console-format.js): `json` as they are written, `pretty` one
   * readable line per event; unset, readable on a terminal and JSON otherwise. The services write JSON either way.
   */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  MONGODB_URL: z.string().default('mongodb://127.0.0.1:27017'),
  MONGODB_DB: z.string().default('zgw'),
  KAFKA_BROKERS: z.string().default('127.0.0.1:9092'),
  KAFKA_CLIENT_ID: z.string().default('zgw-platform'),
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  /**
   * `true`: every notification (the kanaal topics and those of registered kanalen) is also published to a topic of its
   * organisation alone, `tenant.<rsin>.<kanaal>`, for outside consumers that may see their own organisation's events
   * only (a broker ACL per topic); the platform's own workers keep reading the shared topics.
   */
  KAFKA_TENANT_TOPICS: z.enum(['true', 'false']).default('false'),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  /** Clock leeway on the `iat` of ZGW HS256 tokens (a client's clock ahead of ours by up to this much). */
  JWT_LEEWAY_SECONDS: z.coerce.number().int().min(0).default(300),
  ZGW_CLIENTS: z.string().default(''),
  /** Tenants: the tenant (an RSIN) of clients registered without one; created at start as "standaard". */
  ZGW_DEFAULT_TENANT: z
    .string()
    .trim()
    .default('000000000')
    .refine((v) => isRsin(v), 'ZGW_DEFAULT_TENANT must be an RSIN: nine digits passing the eleven test'),
  /** ZSDMS: doelregistraties registered at start (a JSON array, as `POST /admin/api/v1/doelregistraties` takes them). */
  ZGW_DOELREGISTRATIES: z.string().default(''),
  /** ZSDMS: the transfer worker's own client on this platform (registered by the API at start with all rights). */
  TRANSFER_CLIENT_ID: z.string().min(1).default('zgw-transfer'),
  /** Its secret: whoever holds it acts for every organisation, so never a short or guessable one (empty: no transfers). */
  TRANSFER_SECRET: z
    .string()
    .default('')
    .refine((v) => v === '' || v.length >= 32, 'at least 32 characters, random (openssl rand -base64 32), or empty (no transfers)'),
  /** Where the transfer worker reaches this platform's APIs (default PUBLIC_BASE_URL). */
  TRANSFER_API_URL: z.string().url().optional(),
  /** The Temporal task queue of the transfer workflows (one per platform instance that shares a Temporal namespace). */
  TRANSFER_TASK_QUEUE: z.string().min(1).default('zsdms-transfer'),
  /** Technical failures in a transfer: attempts per step, first wait and longest wait between them (seconds). */
  TRANSFER_ATTEMPTS: z.coerce.number().int().min(1).default(10),
  TRANSFER_BACKOFF_SECONDS: z.coerce.number().positive().default(2),
  TRANSFER_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(60),
  /** A step without a sign of life this long (a worker that died) is taken over by another worker. */
  TRANSFER_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).default(30),
  /** The Temporal web UI, for links from the admin screen (empty: no links). */
  TEMPORAL_UI_URL: z.union([z.literal(''), z.string().url()]).default('http://127.0.0.1:8233'),
  /**
   * The Referentielijsten (selectielijst) API that catalogi name; default the platform's own
   * (`<PUBLIC_BASE_URL>/referentielijsten/api/v1`, set by loadConfig), which is read in process.
   */
  REFERENTIELIJSTEN_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  /**
   * Further bases whose referentielijsten URLs resolve, by UUID, to the platform's own objects (beside
   * https://selectielijst.openzaak.nl/api/v1, always one): comma-separated URLs.
   */
  REFERENTIELIJSTEN_ALIASSEN: z
    .string()
    .default('')
    .refine((v) => splitList(v).every((u) => URL.canParse(u)), 'URLs separated by commas'),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(2000),
  CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  RENDER_CACHE_MB: z.coerce.number().int().min(0).default(64),
  PAGE_SKIP_LIMIT: z.coerce.number().int().min(100).default(10_000),
  DRC_BESTANDSDEEL_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(100 * 1024 * 1024),
  /** The Documenten API version served to requests without an `Api-Version` header (`1.5` and `1.7` are accepted too). */
  DRC_DEFAULT_VERSION: z.preprocess(
    (v) => (typeof v === 'string' && /^\d+\.\d+$/.test(v.trim()) ? `${v.trim()}.0` : v),
    z.enum(['1.5.0', '1.7.0']).default('1.5.0'),
  ),
  AUDIT_READS: z.enum(['on', 'off']).default('on'),
  AUDIT_SPOOL_DIR: z.string().min(1).default('.data/audit-spool'),
  AUDIT_EXCLUDE_CLIENT_IDS: z.string().default(''),
  AUDIT_SETTINGS_POLL_MS: z.coerce.number().int().min(100).default(3000),
  /** How long read entries are kept (a TTL index removes them after this many days); write entries are kept. */
  AUDIT_READS_RETENTION_DAYS: z.coerce.number().positive().default(365),
  /** Notificaties: an abonnement whose attempts have all failed this long is locked (default one week). */
  NRC_LOCK_AFTER_HOURS: z.coerce.number().positive().default(168),
  /** How long notifications that matched an abonnement, and finished deliveries, are kept (for resends and the admin screen). */
  NRC_RETENTION_DAYS: z.coerce.number().positive().default(14),
  /** The wait before the next attempt after 1, 2, ... consecutive failures (seconds; the last step repeats). */
  NRC_BACKOFF_SECONDS: z
    .string()
    .regex(/^\s*\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*)*$/, 'positive numbers separated by commas')
    .default('30,60,300,900,3600,10800,21600,43200'),
  /** How long a receiver may take to answer a delivery (and the callback check of a new abonnement). */
  NRC_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Deliveries in flight at once, over all abonnementen, and to one abonnement. */
  NRC_CONCURRENCY: z.coerce.number().int().min(1).default(200),
  NRC_ABONNEMENT_CONCURRENCY: z.coerce.number().int().min(1).default(8),
  /** Pending deliveries of one abonnement the notifier holds in memory; the rest wait in MongoDB until there is room. */
  NRC_QUEUE_LIMIT: z.coerce.number().int().min(10).default(20_000),
  /** How often the notifier re-reads abonnementen, their state, kanalen and resend requests. */
  NRC_REFRESH_MS: z.coerce.number().int().min(50).default(2000),
  /**
   * The notifier's lease: the instance holding it delivers, others stand by and take over once it has not been
   * renewed for this long (or at once when released by a stop). At least twice NRC_DELIVERY_TIMEOUT_MS.
   */
  NRC_LEASE_SECONDS: z.coerce.number().positive().default(30),
  /** Whether a new or changed abonnement's callback must answer a test notification with 2xx (off: not checked). */
  NRC_CALLBACK_CHECK: z.enum(['on', 'off']).default('on'),
  /**
   * The organisation's OIN (20 digits): the `source` of the CloudEvents headers of every Kafka message
   * (`urn:nld:oin:<OIN>:systeem:zgw`); without it the source is PUBLIC_BASE_URL.
   */
  ZGW_OIN: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^\d{20}$/, 'an OIN: 20 digits')
      .optional(),
  ),
  /** `/metrics` of the API and the workers asks for `Authorization: Bearer <METRICS_TOKEN>` when set (else it is open). */
  METRICS_TOKEN: z.string().default(''),
  /**
   * `true`: the API's `/metrics` stays open without METRICS_TOKEN while it serves more than one tenant (without it: the
   * start refuses, and `/metrics` answers 401, since the per-tenant series tell one organisation about the others).
   */
  METRICS_PUBLIC: z.enum(['true', 'false']).default('false'),
  /** Each worker's own port for /metrics, /health and /ready (0: any free port). */
  NOTIFIER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  AUDIT_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  TRANSFER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9466),
  /** The API is not ready (`/ready` 503) while the oldest write whose events wait in the outbox is older than this. */
  READY_OUTBOX_MAX_AGE_SECONDS: z.coerce.number().positive().default(300),
  /** The first administrator of the admin screens, created at start while there is none (see docs/admin.md). */
  ADMIN_INITIAL_USER: z.string().trim().min(1).max(100).default('admin'),
  ADMIN_INITIAL_PASSWORD: z.string().default(''),
  /** An admin session ends after this many minutes without a request, and after ADMIN_SESSION_MAX_HOURS in any case. */
  ADMIN_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).default(30),
  ADMIN_SESSION_MAX_HOURS: z.coerce.number().int().min(1).default(12),
  /**
   * Keys of the personal identifiers at rest (docs/personal-data.md): `<version>:<base64 of 32 bytes>`, comma- or
   * line-separated, newest first; or a file of them. With neither and MongoDB on this machine (the platform's own
   * engines): `<ZGW_DATA_DIR>/pii-keys`, created on the first start.
   */
  ZGW_PII_KEYS: z.string().default(''),
  ZGW_PII_KEYS_FILE: z.string().default(''),
  /** The data directory of the platform's own engines (scripts/engines.sh). */
  ZGW_DATA_DIR: z.string().min(1).default('.data'),
  /**
   * API tokens from an OpenID Connect provider beside the ZGW HS256 tokens (docs/production.md): its issuer (discovery
   * at `<issuer>/.well-known/openid-configuration`; https, or http on 127.0.0.1/localhost only) and the audience the
   * tokens must name. Empty: HS256 tokens only.
   */
  OIDC_API_ISSUER: z
    .string()
    .trim()
    .default('')
    .refine((v) => v === '' || secureOrLocal(v), 'OIDC_API_ISSUER must be an https URL (http only on 127.0.0.1 or localhost)'),
  OIDC_API_AUDIENCE: z.string().trim().default(''),
  /** Clock leeway on `exp` and `nbf` of the identity provider's API tokens. */
  OIDC_API_LEEWAY_SECONDS: z.coerce.number().int().min(0).default(60),
  /** The claim of an identity provider's API token that names the client's tenant (an RSIN). */
  OIDC_API_TENANT_CLAIM: z.string().trim().min(1).default('rsin'),
  /** `true`: a token without that claim is refused (403 tenant-unknown) instead of acting in the default tenant. */
  OIDC_API_TENANT_REQUIRED: z.enum(['true', 'false']).default('false'),
  /** Requests per client id (`<requests>/<window>`, window in s, m or h: `40/1s`, `600/1m`); empty: no limit. */
  RATE_LIMIT: z.string().trim().default(''),
  /** How many API instances share RATE_LIMIT: each enforces its part (the limit divided by this). */
  RATE_LIMIT_INSTANCES: z.coerce.number().int().min(1).default(1),
  /**
   * Administrators signing in through the organisation's OpenID Connect provider (docs/production.md): its issuer
   * (https, or http on 127.0.0.1/localhost only), this platform's client there, and the claim and values that give
   * admin rights. Empty issuer: local names and passwords only.
   */
  ADMIN_OIDC_ISSUER: z
    .string()
    .trim()
    .default('')
    .refine((v) => v === '' || secureOrLocal(v), 'ADMIN_OIDC_ISSUER must be an https URL (http only on 127.0.0.1 or localhost)'),
  ADMIN_OIDC_CLIENT_ID: z.string().trim().default(''),
  ADMIN_OIDC_CLIENT_SECRET: z.string().default(''),
  /** The claim with the administrator's roles: a name, or a dotted path (`realm_access.roles`). */
  ADMIN_OIDC_ROLE_CLAIM: z.string().trim().min(1).default('roles'),
  /** The role values (comma-separated) any one of which gives admin rights. */
  ADMIN_OIDC_ROLES: z.string().trim().min(1).default('zgw-admin'),
  /** Administrators of every tenant (create tenants, manage any): one of these roles. */
  ADMIN_OIDC_PLATFORM_ROLES: z.string().trim().min(1).default('zgw-platform-admin'),
  /** The ID token's claim naming the organisation (tenant RSIN) of an administrator with a role of ADMIN_OIDC_ROLES. */
  ADMIN_OIDC_TENANT_CLAIM: z.string().trim().min(1).default('rsin'),
  /**
   * `true`: a login with a role of ADMIN_OIDC_ROLES and without that claim is refused, and one naming the default
   * tenant manages that organisation only (platform administrators only by ADMIN_OIDC_PLATFORM_ROLES).
   */
  ADMIN_OIDC_TENANT_REQUIRED: z.enum(['true', 'false']).default('false'),
  /** `false`: no local names and passwords on the login page (only the provider). */
  ADMIN_LOCAL_LOGIN: z.enum(['true', 'false']).default('true'),
  /** Where document content is kept: GridFS in MongoDB, or an S3-compatible object store (docs/production.md). */
  INHOUD_STORE: z.enum(['gridfs', 's3']).default('gridfs'),
  S3_ENDPOINT: z.string().trim().default(''),
  S3_BUCKET: z.string().trim().min(3).default('zgw-inhoud'),
  S3_REGION: z.string().trim().default(''),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
  /** An object that no document points to is removed after this many minutes (a crash between the two writes). */
  INHOUD_SWEEP_GRACE_MINUTES: z.coerce.number().int().min(1).default(60),
  /** The registration import: a document version with more content than this is not brought (reported with why). */
  IMPORT_MAX_INHOUD_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(4 * 1024 ** 3),
  /**
   * The registration import: how long one request to the source is tried again (with backoff) before it fails; an
   * object whose read fails so is that object's failure, a source that has answered nothing for this long ends the run.
   */
  IMPORT_BRON_RETRY_SECONDS: z.coerce.number().positive().default(300),
});

export type Config = z.infer<typeof schema> & { PUBLIC_BASE_URL: string; REFERENTIELIJSTEN_URL: string };

/** Every environment variable the services read through loadConfig (docs/configuration.md documents each: docs-check). */
export const CONFIG_KEYS: readonly string[] = Object.keys(schema.shape);

/** An invalid configuration, each problem a line `KEY: what it accepts`: not a crash to retry (see exitOnStartFailure). */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** The exit code of a service stopped by an invalid configuration (sysexits' EX_CONFIG): `npm start` does not restart it. */
export const EXIT_CONFIG = 78;

/**
 * Ends a service whose start failed, with why on stderr: an invalid configuration as its lines and EXIT_CONFIG, any
 * other failure with its stack and exit code 1 (a supervisor starts it again).
 */
export function exitOnStartFailure(service: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof ConfigError) {
      console.error(`${service}: ${err.message}`);
      process.exit(EXIT_CONFIG);
    }
    console.error(`${service} failed to start:`, err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  // (the keys that go together, read as given: so one start names every problem)
  const given = (key: string) => (env[key] ?? '').trim();
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)),
    given('OIDC_API_ISSUER') && !given('OIDC_API_AUDIENCE') && 'OIDC_API_AUDIENCE: required with OIDC_API_ISSUER',
    given('ADMIN_OIDC_ISSUER') && !given('ADMIN_OIDC_CLIENT_ID') && 'ADMIN_OIDC_CLIENT_ID: required with ADMIN_OIDC_ISSUER',
    given('ADMIN_LOCAL_LOGIN') === 'false' &&
      !given('ADMIN_OIDC_ISSUER') &&
      'ADMIN_LOCAL_LOGIN: false needs ADMIN_OIDC_ISSUER (else no one can sign in)',
  ].filter((p): p is string => !!p);
  if (!parsed.success || problems.length) throw new ConfigError(problems);
  const c = parsed.data;
  const base = (c.PUBLIC_BASE_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/+$/, '');
  return { ...c, PUBLIC_BASE_URL: base, REFERENTIELIJSTEN_URL: (c.REFERENTIELIJSTEN_URL ?? `${base}/referentielijsten/api/v1`).replace(/\/+$/, '') };
}

/** The entries of a comma-separated setting, trimmed, without empty ones. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** An https URL, or an http one on this machine (tests, development): what an identity provider may be reached at. */
export function secureOrLocal(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || (u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname));
  } catch {
    return false;
  }
}
