import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { DestinationStream } from '@zgw/shared';
import { createSigner } from 'fast-jwt';
import { ceSource, connectMongo, createKafka, createLogger, loadConfig, type Config, type Mongo } from '@zgw/shared';
import { buildApp } from '../src/app';
import { Credentials } from '../src/common/auth/credentials';
import { CacheBroadcast } from '../src/common/storage/cache';
import { OutboxRelay } from '../src/common/storage/relay';
import { ensureAllRights } from '../src/bootstrap';
import type { Deps } from '../src/common/platform/component';
import { createDeps } from '../src/common/platform/deps';

export const BASE = 'http://127.0.0.1:8000';
export const ADMIN = 'test-admin';
export const ADMIN_SECRET = 'test-admin-secret';

export function token(clientId = ADMIN, secret = ADMIN_SECRET, claims: Record<string, unknown> = {}): string {
  return createSigner({ key: secret, algorithm: 'HS256' })({
    client_id: clientId,
    iss: clientId,
    user_id: 'tester',
    user_representation: 'Tester',
    ...claims,
  });
}

export interface TestApp {
  app: FastifyInstance;
  mongo: Mongo;
  config: Config;
  relay: OutboxRelay;
  deps: Deps;
  topicPrefix: string;
  /** Sends a request as `clientId` (default: the all-rights test client). */
  call(
    method: string,
    url: string,
    body?: unknown,
    opts?: { token?: string | null; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  /** Registers a client id with a secret and (optionally) creates its applicatie with these rights. */
  client(clientId: string, secret: string): Promise<void>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Another instance of the same platform: same database and topics (for multi-instance behaviour). */
  shareWith?: TestApp;
  /** Run the cache broadcast between instances, as `main` does. */
  broadcast?: boolean;
  /** Where the log lines go (with LOG_LEVEL set): the product's own logger, writing here instead of stdout. */
  logTo?: DestinationStream;
}

/** A fresh API on the real engines: its own database and its own Kafka topic prefix (unless shared). */
export async function startApp(env: Record<string, string> = {}, opts: StartOptions = {}): Promise<TestApp> {
  const id = randomUUID().slice(0, 8);
  const topicPrefix = opts.shareWith?.topicPrefix ?? `test-${id}-`;
  const dbName = opts.shareWith?.config.MONGODB_DB ?? `zgw_test_${id}`;
  // Each app spools its read entries in a directory of its own (one machine each), removed when it closes.
  const spool = env.AUDIT_SPOOL_DIR ? undefined : join(tmpdir(), `zgw-test-spool-${id}`);
  const config = loadConfig({
    ...process.env,
    MONGODB_DB: dbName,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    PUBLIC_BASE_URL: BASE,
    LOG_LEVEL: 'silent',
    OUTBOX_POLL_MS: '200',
    AUDIT_SPOOL_DIR: spool,
    ...env,
  });
  const log = createLogger('test', config.LOG_LEVEL, opts.logTo);
  const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  const relay = new OutboxRelay(
    createKafka(config.KAFKA_BROKERS, `test-${id}`),
    topicPrefix,
    config.OUTBOX_POLL_MS,
    log,
    ceSource(config),
    config.KAFKA_TENANT_TOPICS === 'true',
  );
  const deps = createDeps(config, mongo.db, log, relay);
  const app = await buildApp({ deps });
  const broadcast = opts.broadcast
    ? new CacheBroadcast(createKafka(config.KAFKA_BROKERS, `test-${id}-cache`), topicPrefix, deps.caches, log, ceSource(config))
    : undefined;
  await broadcast?.start();
  const creds = new Credentials(mongo.db, deps.pii, config.ZGW_DEFAULT_TENANT);
  await creds.set(ADMIN, config.ZGW_DEFAULT_TENANT, ADMIN_SECRET);
  await ensureAllRights(mongo.db, ADMIN, config.ZGW_DEFAULT_TENANT);
  relay.start();
  const adminToken = token();
  return {
    app,
    mongo,
    config,
    relay,
    deps,
    topicPrefix,
    call: (method, url, body, opts = {}) => {
      const tok = opts.token === undefined ? adminToken : opts.token;
      const headers: Record<string, string> = { ...(tok ? { authorization: `Bearer ${tok}` } : {}), ...(opts.headers ?? {}) };
      const base = [config.PUBLIC_BASE_URL, BASE].find((b) => url.startsWith(b));
      const path = base ? url.slice(base.length) : url;
      return app.inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(body === undefined
          ? {}
          : typeof body === 'string'
            ? { payload: body, headers: { ...headers, 'content-type': 'application/json' } }
            : { payload: body as object }),
      });
    },
    client: async (clientId, secret) => {
      await creds.set(clientId, config.ZGW_DEFAULT_TENANT, secret);
    },
    close: async () => {
      await broadcast?.stop();
      await relay.stop();
      await app.close();
      // the database is the first instance's: an instance that shares it leaves it to that one
      if (!opts.shareWith) await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.client.close();
      if (spool) rmSync(spool, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it holds (true) or the time is up (false): for effects that travel through Kafka. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
