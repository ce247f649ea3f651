import './tracing';
import {
  AUDIT_READS_TOPIC,
  AUDIT_TOPIC,
  consumerLagGauge,
  createLogger,
  exitOnStartFailure,
  loadConfig,
  observeWorker,
  onShutdown,
  topicName,
} from '@zgw/shared';
import { groupId, startAuditWorker, type AuditWorker } from './worker';

/**
 * Audit trail worker: stores the write entries of topic `audit` in `audittrail` and the read entries of topic
 * `audit-reads` in `auditreads`, each by uuid and only where absent (see worker.ts). Metrics (its consumer lag),
 * health and readiness on AUDIT_METRICS_PORT.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('audit', config.LOG_LEVEL);
  let worker: AuditWorker | undefined;
  const observed = await observeWorker('audit', config, log, { db: () => worker?.db, kafka: true });
  const prefix = config.KAFKA_TOPIC_PREFIX;
  consumerLagGauge(observed.registry, observed.probe, groupId(prefix), () => [AUDIT_TOPIC, AUDIT_READS_TOPIC].map((t) => topicName(prefix, t)), log);
  // Registered first: a stop while MongoDB or Kafka is still awaited at start ends the process too.
  onShutdown(log, async () => {
    await worker?.stop();
    await observed.stop();
  });
  worker = await startAuditWorker(config, log);
}

main().catch(exitOnStartFailure('audit'));
