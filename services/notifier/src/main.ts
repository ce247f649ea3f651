import { createLogger, loadConfig, onShutdown } from '@zgw/shared';
import { startNotifier, type Notifier } from './worker';

/**
 * NRC fan-out worker: consumes the topic of every kanaal, delivers each notification to the abonnementen whose
 * filters it matches, with retries, a record of every attempt and the lock of abonnementen that fail too long
 * (see worker.ts).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('notifier', config.LOG_LEVEL);
  let notifier: Notifier | undefined;
  // Registered first: a stop while MongoDB or Kafka is still awaited at start ends the process too.
  onShutdown(log, async () => notifier?.stop());
  notifier = await startNotifier(config, log);
}

main().catch((err) => {
  console.error('notifier failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
