import { NativeConnection, Worker } from '@temporalio/worker';
import { createLogger, loadConfig, onShutdown } from '@zgw/shared';
import * as activities from './activities';

export const TASK_QUEUE = 'zsdms-transfer';

/** Temporal worker for ZSDMS case transfers (the transfer workflows arrive with the ZSDMS issue). */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('transfer', config.LOG_LEVEL);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await Worker.create({ connection, namespace: config.TEMPORAL_NAMESPACE, taskQueue: TASK_QUEUE, activities });
  log.info({ address: config.TEMPORAL_ADDRESS, taskQueue: TASK_QUEUE }, 'transfer worker polling');
  onShutdown(log, async () => {
    worker.shutdown();
  });
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error('transfer failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
