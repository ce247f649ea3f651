import './tracing';
import { createLogger, KANALEN, exitOnStartFailure, loadConfig, observeWorker, onShutdown, topicName } from '@zgw/shared';
import { registerNotifierMetrics } from './metrics';
import { groupId, startNotifier, type Notifier } from './worker';

/**
 * NRC fan-out worker: consumes the topic of every kanaal, delivers each notification to the abonnementen whose
 * filters it matches, with retries, a record of every attempt and the lock of abonnementen that fail too long
 * (see worker.ts). Metrics, health and readiness on NOTIFIER_METRICS_PORT.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('notifier', config.LOG_LEVEL);
  let notifier: Notifier | undefined;
  const observed = await observeWorker('notifier', config, log, { db: () => notifier?.db, kafka: true });
  const prefix = config.KAFKA_TOPIC_PREFIX;
  registerNotifierMetrics(
    observed.registry,
    () => notifier,
    { probe: observed.probe, group: groupId(prefix), topics: KANALEN.map((k) => topicName(prefix, k)) },
    log,
  );
  // Registered first: a stop while MongoDB or Kafka is still awaited at start ends the process too.
  onShutdown(log, async () => {
    await notifier?.stop();
    await observed.stop();
  });
  notifier = await startNotifier(config, log);
}

main().catch(exitOnStartFailure('notifier'));
