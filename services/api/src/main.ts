import './tracing';
import { ceSource, connectMongo, createKafka, createLogger, KafkaProbe, exitOnStartFailure, loadConfig, releaseLabel } from '@zgw/shared';
import { buildApp } from './app';
import { bootstrapDoelregistraties } from './admin/doelregistraties';
import { bootstrapClients, bootstrapTransferClient } from './bootstrap';
import { reservedClientIds } from './common/auth/credentials';
import { CacheBroadcast } from './common/storage/cache';
import { createApiMetrics } from './common/platform/metrics';
import { OutboxRelay } from './common/storage/relay';
import { createDeps } from './common/platform/deps';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('api', config.LOG_LEVEL);
  const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  const relay = new OutboxRelay(
    createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-api`),
    config.KAFKA_TOPIC_PREFIX,
    config.OUTBOX_POLL_MS,
    log,
    ceSource(config),
    config.KAFKA_TENANT_TOPICS === 'true',
  );
  const deps = createDeps(config, mongo.db, log, relay);
  const cacheBroadcast = new CacheBroadcast(
    createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-api-cache`),
    config.KAFKA_TOPIC_PREFIX,
    deps.caches,
    log,
    ceSource(config),
  );
  if (config.ZGW_CLIENTS) await bootstrapClients(mongo.db, deps.pii, config.ZGW_CLIENTS, log, deps.tenants, reservedClientIds(config));
  await bootstrapTransferClient(mongo.db, deps.pii, config, log);
  if (config.ZGW_DOELREGISTRATIES) await bootstrapDoelregistraties(mongo.db, deps.pii, config.ZGW_DOELREGISTRATIES, log, config.ZGW_DEFAULT_TENANT);
  const kafka = new KafkaProbe(createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-api-probe`));
  const health = async () => ({ kafka: relay.healthy ? 'ok' : 'unreachable (events wait in the outbox)' });
  const app = await buildApp({ deps, health, metrics: createApiMetrics(), kafka });
  relay.start();
  // Without Kafka the API still serves; other instances' writes then reach this one's caches after CACHE_TTL_MS.
  void cacheBroadcast.start();
  await app.listen({ host: config.HOST, port: config.PORT });
  log.info({ release: releaseLabel(), baseUrl: config.PUBLIC_BASE_URL }, 'api listening');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await app.close();
    await relay.stop();
    await cacheBroadcast.stop();
    await kafka.stop().catch(() => undefined);
    await mongo.client.close();
    clearTimeout(force);
    log.info('stopped');
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch(exitOnStartFailure('api'));
