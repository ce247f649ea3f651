import { createLogger, loadConfig, onShutdown } from '@zgw/shared';
import { startAuditWorker, type AuditWorker } from './worker';

/**
 * Audit trail worker: stores the write entries of topic `audit` in `audittrail` and the read entries of topic
 * `audit-reads` in `auditreads`, each by uuid and only where absent (see worker.ts).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('audit', config.LOG_LEVEL);
  let worker: AuditWorker | undefined;
  // Registered first: a stop while MongoDB or Kafka is still awaited at start ends the process too.
  onShutdown(log, async () => worker?.stop());
  worker = await startAuditWorker(config, log);
}

main().catch((err) => {
  console.error('audit failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
