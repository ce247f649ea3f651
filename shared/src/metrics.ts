import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Admin, Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from './config';
import { createKafka } from './kafka';
import type { Logger } from './logger';

export { Counter, Gauge, Histogram, Registry };

/**
 * The metrics of one process in the Prometheus text format: the default process metrics (CPU, memory, event loop,
 * GC) and what the service registers, each named `zgw_...`. Labels never carry ids, URLs with uuids, secrets or BSNs.
 */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Whether a scrape may read the metrics: always without METRICS_TOKEN, else only with `Authorization: Bearer <token>`. */
export function metricsAllowed(authorization: string | undefined, token: string): boolean {
  if (!token) return true;
  const given = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** What a readiness check reports: each dependency `ok` or what is wrong with it. */
export type Readiness = Record<string, string>;

export function isReady(checks: Readiness): boolean {
  return Object.values(checks).every((v) => v === 'ok');
}

/** The answer of `/ready`: 200 when every check is ok, else 503; the checks in the body either way. */
export function readyAnswer(checks: Readiness): { status: number; body: Record<string, string> } {
  const ready = isReady(checks);
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready', ...checks } };
}

/** Runs a check with a time limit; a failure or timeout reads as its message. */
export async function check(what: () => Promise<unknown>, timeoutMs = 2000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      what(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
    ]);
    return 'ok';
  } catch (err) {
    return (err as Error).message || 'failed';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A worker's own small HTTP port: `GET /metrics` (the registry; a bearer token when `token` is set), `GET /health`
 * (liveness: the process answers) and `GET /ready` (200 when every check of `ready` says ok, else 503 with them).
 */
export async function serveWorkerHttp(opts: {
  host: string;
  port: number;
  registry: Registry;
  token: string;
  ready: () => Promise<Readiness>;
  log: Logger;
}): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    void (async () => {
      if (req.method !== 'GET') return json(405, { detail: 'only GET' });
      if (path === '/health') return json(200, { status: 'ok' });
      if (path === '/ready') {
        const answer = readyAnswer(await opts.ready());
        return json(answer.status, answer.body);
      }
      if (path === '/metrics') {
        if (!metricsAllowed(req.headers.authorization, opts.token)) return json(401, { detail: 'a bearer token is required (METRICS_TOKEN)' });
        const text = await opts.registry.metrics();
        return res.writeHead(200, { 'Content-Type': opts.registry.contentType }).end(text);
      }
      return json(404, { detail: 'not found' });
    })().catch((err) => {
      opts.log.error({ err, path }, 'metrics port: request failed');
      if (!res.headersSent) json(500, { detail: 'failed' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  opts.log.info({ port: (server.address() as { port: number }).port }, 'metrics, health and readiness served');
  return server;
}

/**
 * One Kafka admin client kept connected for scrapes and readiness checks: connected when first used, dropped (and
 * connected again next time) after a failure.
 */
export class KafkaProbe {
  private admin?: Admin;

  constructor(private readonly kafka: Kafka) {}

  async use<T>(fn: (admin: Admin) => Promise<T>): Promise<T> {
    try {
      if (!this.admin) {
        const a = this.kafka.admin();
        await a.connect();
        this.admin = a;
      }
      return await fn(this.admin);
    } catch (err) {
      const a = this.admin;
      this.admin = undefined;
      await a?.disconnect().catch(() => undefined);
      throw err;
    }
  }

  /** Whether the brokers answer (for /ready). */
  reachable(): Promise<string> {
    return check(() => this.use((a) => a.describeCluster()));
  }

  async stop(): Promise<void> {
    await this.admin?.disconnect();
    this.admin = undefined;
  }
}

/**
 * `zgw_kafka_consumer_lag{group,topic,partition}`: how many messages of each partition the consumer group has not
 * committed yet, read from the broker at each scrape (so a stuck consumer shows its lag growing). While Kafka is
 * unreachable the gauge has no samples (one warning per outage).
 */
export function consumerLagGauge(registry: Registry, probe: KafkaProbe, group: string, topics: () => string[], log: Logger): void {
  let warned = false;
  new Gauge({
    name: 'zgw_kafka_consumer_lag',
    help: 'Messages of a partition that the consumer group has not processed (committed) yet',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const lags = await probe.use(async (admin) => {
          const names = topics();
          const committed = await admin.fetchOffsets({ groupId: group, topics: names });
          const out: { topic: string; partition: number; lag: number }[] = [];
          for (const topic of names) {
            const done = new Map((committed.find((c) => c.topic === topic)?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
            for (const end of await admin.fetchTopicOffsets(topic)) {
              const at = done.get(end.partition) ?? -1;
              out.push({ topic, partition: end.partition, lag: Math.max(0, Number(end.high) - (at < 0 ? Number(end.low) : at)) });
            }
          }
          return out;
        });
        for (const l of lags) this.set({ group, topic: l.topic, partition: String(l.partition) }, l.lag);
        warned = false;
      } catch (err) {
        if (!warned) log.warn({ err, group }, 'consumer lag unknown: Kafka unreachable');
        warned = true;
      }
    },
  });
}

/** A worker's metrics registry, its Kafka probe and its HTTP port; `stop` closes the port and the probe. */
export interface WorkerObservability {
  registry: Registry;
  probe: KafkaProbe;
  stop(): Promise<void>;
}

const WORKER_PORTS = { notifier: 'NOTIFIER_METRICS_PORT', audit: 'AUDIT_METRICS_PORT', transfer: 'TRANSFER_METRICS_PORT' } as const;

/**
 * Serves a worker's /metrics, /health and /ready on its port (NOTIFIER_/AUDIT_/TRANSFER_METRICS_PORT): ready while
 * its MongoDB database answers (`db` gives it once connected), with `kafka` the brokers too, and `more` says ok.
 */
export async function observeWorker(
  service: keyof typeof WORKER_PORTS,
  config: Config,
  log: Logger,
  deps: { db: () => Db | undefined; kafka: boolean; more?: () => Promise<Readiness> },
): Promise<WorkerObservability> {
  const registry = createMetrics(service);
  const probe = new KafkaProbe(createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-${service}-probe`));
  const ready = async (): Promise<Readiness> => {
    const db = deps.db();
    return {
      mongodb: db ? await check(() => db.command({ ping: 1 })) : 'connecting',
      ...(deps.kafka ? { kafka: await probe.reachable() } : {}),
      ...(deps.more ? await deps.more() : {}),
    };
  };
  const server = await serveWorkerHttp({ host: config.HOST, port: config[WORKER_PORTS[service]], registry, token: config.METRICS_TOKEN, ready, log });
  return {
    registry,
    probe,
    stop: async () => {
      server.close();
      await probe.stop().catch(() => undefined);
    },
  };
}
