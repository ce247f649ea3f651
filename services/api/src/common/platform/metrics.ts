import type { FastifyInstance } from 'fastify';
import {
  check,
  ConfigError,
  Counter,
  createMetrics,
  Gauge,
  Histogram,
  metricsAllowed,
  readyAnswer,
  type KafkaProbe,
  type Readiness,
  type Registry,
} from '@zgw/shared';
import { oldestUnsent, unsentBytes } from '../audit/audit-spool';
import type { Deps } from './component';

/** The API's registry: the default process metrics and those below. */
export function createApiMetrics(): Registry {
  return createMetrics('api');
}

const seconds = (since: Date | undefined) => (since ? Math.max(0, (Date.now() - since.getTime()) / 1000) : 0);

/**
 * `GET /metrics` (Prometheus text; a bearer token when METRICS_TOKEN is set, and none to be had while more than one
 * tenant exists without it, unless METRICS_PUBLIC=true) and `GET /ready` (MongoDB and Kafka reachable, the outbox not
 * stuck), with the API's metrics: every request by route template, method and status, the authenticated requests per
 * tenant (counts only), the outbox, the read-audit spool and the read caches. `/health` stays liveness.
 */
export function registerMetrics(app: FastifyInstance, deps: Deps, registry: Registry, kafka?: KafkaProbe): void {
  // The start is refused while more than one tenant exists and /metrics would be open to whoever reaches it.
  app.addHook('onReady', async () => refuseOpenMetrics(deps));
  const requests = new Histogram({
    name: 'zgw_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template (never a URL with ids), method and status',
    labelNames: ['route', 'method', 'status_code'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Per tenant only what a provider bills and watches (bounded: tenants x status classes), never per route.
  const byTenant = new Counter({
    name: 'zgw_tenant_requests_total',
    help: 'Authenticated requests by the tenant of their client and the class of their status (2xx, 3xx, 4xx, 5xx)',
    labelNames: ['tenant', 'status_class'],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.observe({ route, method: request.method, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
    const tenant = (request.caller ?? request.adminCaller)?.tenant;
    if (tenant) byTenant.inc({ tenant, status_class: `${Math.floor(reply.statusCode / 100)}xx` });
  });

  type Backlog = { events: number; oldest?: Date };
  let backlog: Promise<Backlog> | undefined;
  /** One read of the outbox for the gauges that ask at once (a scrape collects them together). */
  const outbox = (): Promise<Backlog> =>
    (backlog ??= (deps.relay?.backlog() ?? Promise.resolve<Backlog>({ events: 0 })).finally(() => (backlog = undefined)));
  new Gauge({
    name: 'zgw_outbox_events_waiting',
    help: 'Events written with their resources that the relay has not published to Kafka yet',
    registers: [registry],
    async collect() {
      this.set((await outbox()).events);
    },
  });
  new Gauge({
    name: 'zgw_outbox_oldest_event_age_seconds',
    help: 'How long ago the oldest write whose events still wait in the outbox was made (0 when none waits)',
    registers: [registry],
    async collect() {
      this.set(seconds((await outbox()).oldest));
    },
  });
  new Gauge({
    name: 'zgw_audit_spool_bytes',
    help: "Bytes of read-audit entries in this instance's spool not yet sent to Kafka",
    registers: [registry],
    async collect() {
      const dir = deps.reads?.spoolDir;
      this.set(dir ? await unsentBytes(dir) : 0);
    },
  });
  new Gauge({
    name: 'zgw_audit_spool_oldest_entry_age_seconds',
    help: "Age of the oldest read-audit entry in this instance's spool not yet sent to Kafka (0 when none waits)",
    registers: [registry],
    async collect() {
      const dir = deps.reads?.spoolDir;
      this.set(seconds(dir ? await oldestUnsent(dir) : undefined));
    },
  });
  for (const [what, field] of [
    ['hits', 'hits'],
    ['misses', 'misses'],
  ] as const) {
    new Counter({
      name: `zgw_read_cache_${what}_total`,
      help: `Reads of the in-process read cache that ${what === 'hits' ? 'it answered' : 'loaded from MongoDB'}, by region`,
      labelNames: ['region'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [region, cache] of deps.caches.all()) this.inc({ region }, cache[field]);
      },
    });
  }

  for (const [what, field] of [
    ['hits', 'hits'],
    ['misses', 'misses'],
  ] as const) {
    new Counter({
      name: `zgw_render_cache_${what}_total`,
      help: `Objects of list pages ${what === 'hits' ? 'written from their kept JSON text' : 'rendered (not kept, or changed since)'} (render cache)`,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(deps.renders[field]);
      },
    });
  }
  new Gauge({
    name: 'zgw_render_cache_bytes',
    help: 'Bytes the render cache holds (stored objects and their texts; bounded by RENDER_CACHE_MB)',
    registers: [registry],
    collect() {
      this.set(deps.renders.heldBytes);
    },
  });

  new Counter({
    name: 'zgw_rate_limited_total',
    help: 'Requests refused with 429 because their client went over its rate limit (this instance)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(deps.auth.limiter?.refused ?? 0);
    },
  });
  // The RateLimit headers of an authenticated request go with its answer (a 429 carries them already).
  app.addHook('onSend', async (request, reply) => {
    if (request.rateHeaders && !reply.hasHeader('ratelimit-limit')) reply.headers(request.rateHeaders);
  });

  /** A second tenant, once seen, stays (tenants are not removed while the API runs); until then each scrape looks. */
  let several = false;
  let saidAt = 0;
  const open = async (): Promise<boolean> => {
    if (deps.config.METRICS_PUBLIC === 'true') return true;
    several ||= await deps.tenants.several();
    if (several && Date.now() - saidAt > 3_600_000) {
      saidAt = Date.now();
      deps.log.error(
        'GET /metrics refused: this installation serves more than one tenant and METRICS_TOKEN is not set (set it, and give it to Prometheus; or METRICS_PUBLIC=true)',
      );
    }
    return !several;
  };
  app.get('/metrics', async (request, reply) => {
    const token = deps.config.METRICS_TOKEN;
    if (token ? !metricsAllowed(request.headers.authorization, token) : !(await open())) {
      return reply.code(401).send({ title: 'A bearer token is required (METRICS_TOKEN).', status: 401 });
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
  app.get('/ready', async (_request, reply) => {
    const checks: Readiness = { mongodb: await check(() => deps.db.command({ ping: 1 })) };
    if (kafka) checks.kafka = await kafka.reachable();
    if (deps.relay) {
      checks.outbox = await check(async () => {
        const age = seconds((await outbox()).oldest);
        if (age > deps.config.READY_OUTBOX_MAX_AGE_SECONDS) throw new Error(`stuck: the oldest waiting write is ${Math.round(age)} s old`);
      });
    }
    const answer = readyAnswer(checks);
    return reply.code(answer.status).send(answer.body);
  });
}

/**
 * An installation of several organisations shows each one's requests in `/metrics` (zgw_tenant_requests_total): its
 * start is refused while more than one tenant exists and `/metrics` would be open (no METRICS_TOKEN, no
 * METRICS_PUBLIC=true). Tenants are added while it runs: the scrape is refused then (registerMetrics).
 */
async function refuseOpenMetrics(deps: Pick<Deps, 'config' | 'tenants'>): Promise<void> {
  const { METRICS_TOKEN, METRICS_PUBLIC } = deps.config;
  if (METRICS_TOKEN || METRICS_PUBLIC === 'true' || !(await deps.tenants.several())) return;
  throw new ConfigError([
    'METRICS_TOKEN: required when the installation serves more than one tenant (its /metrics counts the requests of each); or METRICS_PUBLIC=true to serve /metrics without a token',
  ]);
}
