import { tracing } from './tracing';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import {
  check,
  checkPiiKeys,
  connectMongo,
  createLogger,
  exitOnStartFailure,
  loadConfig,
  observeWorker,
  onShutdown,
  piiFromConfig,
  sealedDataConverter,
} from '@zgw/shared';
import { createActivities } from './activities';
import { registerTransferMetrics } from './common/metrics';
import { temporalLogger } from './temporal-log';
import { tracedWorker } from './workflow-spans';

/**
 * The Temporal worker of the platform's long jobs, one folder per feature: ZSDMS transfers (`overdracht`), the
 * registration import (`importeren`) and destruction lists (`vernietigen`); every feature's workflows through the
 * bundle index workflows.ts and its activities through activities.ts, on task queue TRANSFER_TASK_QUEUE.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('transfer', config.LOG_LEVEL);
  // The Temporal runtime's own lines (worker state, failed attempts) as JSON lines of this service's log; webpack's
  // listing of the workflow bundle at debug.
  Runtime.install({ logger: temporalLogger(log) });
  if (!config.TRANSFER_SECRET)
    log.warn({ clientId: config.TRANSFER_CLIENT_ID }, 'TRANSFER_SECRET is not set: every transfer will fail to reach this platform');
  const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  const pii = piiFromConfig(config, log);
  await checkPiiKeys(mongo.db, pii);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const temporal = () => check(() => connection.workflowService.getSystemInfo({}));
  const observed = await observeWorker('transfer', config, log, {
    db: () => mongo.db,
    kafka: false,
    more: async () => ({ temporal: await temporal() }),
  });
  registerTransferMetrics(observed.registry);
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TRANSFER_TASK_QUEUE,
    workflowsPath: require.resolve('./workflows'),
    activities: createActivities({ config, log, db: mongo.db, pii }),
    // what the history keeps (inputs, results, failures) sealed with the platform's PII keys
    dataConverter: sealedDataConverter(pii),
    ...tracedWorker(tracing),
  });
  log.info({ address: config.TEMPORAL_ADDRESS, taskQueue: config.TRANSFER_TASK_QUEUE }, 'transfer worker polling');
  onShutdown(log, async () => {
    worker.shutdown();
  });
  await worker.run();
  await observed.stop();
  await connection.close();
  await mongo.client.close();
}

main().catch(exitOnStartFailure('transfer'));
