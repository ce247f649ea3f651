import type { Db } from 'mongodb';
import {
  AUDIT_READS_COLLECTION,
  AUDIT_READS_TOPIC,
  AUDIT_TOPIC,
  AUDITTRAIL_COLLECTION,
  connectMongo,
  createKafka,
  ensureAuditIndexes,
  ensureTopics,
  topicName,
  untilDone,
  type Config,
  type Logger,
  type Mongo,
  TENANTS_COLLECTION,
  TENANT_FIELD,
  VERNIETIGD_COLLECTION,
} from '@zgw/shared';
import { batchHandler, type BatchOptions } from './batch';
import { MongoEntryStore, type EntryStore } from './store';

export interface AuditWorker {
  /** The database the entries go to (for readiness checks). */
  readonly db: Db;
  /** Stops consuming (a batch being stored is left uncommitted, delivered again on the next start), then closes. */
  stop(): Promise<void>;
}

export interface WorkerOptions {
  /** Where entries go (default: MongoDB at MONGODB_URL/MONGODB_DB); the worker's own connection still declares the indexes. */
  store?: (mongo: Mongo) => EntryStore;
  chunkSize?: number;
  retry?: BatchOptions['retry'];
}

/** The consumer group: one per topic prefix, so installations that share a Kafka cluster each read every entry. */
export const groupId = (prefix: string) => `${prefix}zgw-audit`;

/**
 * The audit trail worker: consumes topics `audit` (write entries, from the outbox of every written document) and
 * `audit-reads` (read entries, from the API's spool) and stores them in `audittrail` and `auditreads` by uuid, only
 * where absent (see batchHandler). Waits for MongoDB at start if it is not there yet.
 */
export async function startAuditWorker(config: Config, log: Logger, opts: WorkerOptions = {}): Promise<AuditWorker> {
  const mongo = await untilDone(log, 'MongoDB', async () => {
    const m = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
    try {
      await ensureAuditIndexes(m.db, AUDITTRAIL_COLLECTION);
      await ensureAuditIndexes(m.db, AUDIT_READS_COLLECTION, config.AUDIT_READS_RETENTION_DAYS);
      return m;
    } catch (err) {
      await m.client.close().catch(() => undefined);
      throw err;
    }
  });
  const prefix = config.KAFKA_TOPIC_PREFIX;
  const kafka = createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-audit`);
  const consumer = kafka.consumer({ groupId: groupId(prefix), retry: { retries: 100, initialRetryTime: 500, maxRetryTime: 10_000 } });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    log.error({ err: payload.error?.message, restart: payload.restart }, 'audit consumer stopped on an error');
  });
  try {
    await untilDone(log, 'Kafka', async () => {
      await ensureTopics(kafka, prefix, [AUDIT_TOPIC, AUDIT_READS_TOPIC]);
      await consumer.connect();
    });
    await consumer.subscribe({ topics: [AUDIT_TOPIC, AUDIT_READS_TOPIC].map((t) => topicName(prefix, t)), fromBeginning: true });
    const store = opts.store ? opts.store(mongo) : new MongoEntryStore(mongo.db);
    const tenants = mongo.db.collection<{ _id: string }>(TENANTS_COLLECTION);
    const vernietigd = mongo.db.collection<{ _id: string }>(VERNIETIGD_COLLECTION);
    await consumer.run({
      eachBatchAutoResolve: false,
      eachBatch: batchHandler({
        store,
        log,
        prefix,
        defaultTenant: config.ZGW_DEFAULT_TENANT,
        tenantExists: async (tenant) => !!(await tenants.findOne({ _id: tenant }, { projection: { _id: 1 } })),
        vernietigd: async (tenant, urls) =>
          new Set((await vernietigd.find({ [TENANT_FIELD]: tenant, _id: { $in: urls } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id)),
        chunkSize: opts.chunkSize,
        retry: opts.retry,
      }),
    });
  } catch (err) {
    await consumer.disconnect().catch(() => undefined);
    await mongo.client.close().catch(() => undefined);
    throw err;
  }
  log.info({ topics: [AUDIT_TOPIC, AUDIT_READS_TOPIC], prefix, group: groupId(prefix) }, 'audit consuming');
  return {
    db: mongo.db,
    stop: async () => {
      await consumer.disconnect();
      await mongo.client.close();
    },
  };
}
