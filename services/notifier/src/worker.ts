import type { Consumer, Kafka } from 'kafkajs';
import {
  connectMongo, createKafka, ensureNrcIndexes, ensureTopics, parseBackoff, sleep, topicName, untilDone,
  type Config, type Logger,
} from '@zgw/shared';
import { systemClock, type Clock } from './clock';
import { Deliverer } from './deliverer';
import { intakeHandler } from './intake';
import { Registry } from './registry';
import { processResends } from './resends';
import { sweep } from './retention';
import { httpSender, type Sender } from './send';

export interface Notifier {
  readonly deliverer: Deliverer;
  readonly registry: Registry;
  /** Re-reads abonnementen, kanalen and resend requests now (as every NRC_REFRESH_MS). */
  refresh(): Promise<void>;
  /** Removes what is past the retention now (as every hour). */
  sweep(): Promise<{ notificaties: number; deliveries: number }>;
  /** Stops consuming, lets deliveries in flight finish and writes their results, then closes. */
  stop(): Promise<void>;
}

export interface NotifierOptions {
  clock?: Clock;
  send?: Sender;
}

/** The consumer group: one per topic prefix, so installations that share a Kafka cluster each receive everything. */
export const groupId = (prefix: string) => `${prefix}zgw-notifier`;

const SWEEP_EVERY_MS = 3_600_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The NRC fan-out worker: consumes the topic of every kanaal, records a delivery for each matching abonnement
 * (intake.ts), delivers them lane by lane with retries and the lock (deliverer.ts), carries out resends and keeps
 * what it keeps for NRC_RETENTION_DAYS. Waits for MongoDB and Kafka at start if they are not there yet.
 */
export async function startNotifier(config: Config, log: Logger, opts: NotifierOptions = {}): Promise<Notifier> {
  const clock = opts.clock ?? systemClock;
  const mongo = await untilDone(log, 'MongoDB', async () => {
    const m = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
    try {
      await ensureNrcIndexes(m.db);
      return m;
    } catch (err) {
      await m.client.close().catch(() => undefined);
      throw err;
    }
  });
  const deliverer = new Deliverer({
    db: mongo.db,
    log,
    clock,
    send: opts.send ?? httpSender(clock, config.NRC_DELIVERY_TIMEOUT_MS),
    concurrency: config.NRC_CONCURRENCY,
    perLane: config.NRC_ABONNEMENT_CONCURRENCY,
    lockAfterMs: config.NRC_LOCK_AFTER_HOURS * HOUR,
    backoffMs: parseBackoff(config.NRC_BACKOFF_SECONDS),
    queueLimit: config.NRC_QUEUE_LIMIT,
  });
  const prefix = config.KAFKA_TOPIC_PREFIX;
  const kafka = createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-notifier`);
  let intake: Intake | undefined;
  const registry = new Registry(mongo.db, deliverer, async (topics) => {
    // A new kanaal: consume its topic too (the group starts a new topic at its beginning, so nothing is missed).
    if (intake) await intake.subscribe(topics).catch((err: Error) => log.error({ err: err.message }, 'could not subscribe to the new kanaal topics'));
  });
  await registry.ensureIndexes();
  const refresh = async () => {
    await registry.refresh();
    await processResends(mongo.db, deliverer, (id) => deliverer.lane(id)?.target, clock, log);
  };
  await untilDone(log, 'MongoDB', () => registry.refresh());

  intake = new Intake(kafka, prefix, log, intakeHandler({ db: mongo.db, registry, deliverer, clock, log }));
  try {
    await untilDone(log, 'Kafka', () => intake!.subscribe(registry.topics));
  } catch (err) {
    await mongo.client.close().catch(() => undefined);
    throw err;
  }
  log.info({ topics: registry.topics, prefix, group: groupId(prefix) }, 'notifier consuming');

  let stopped = false;
  let refreshing: Promise<void> | undefined;
  const refreshTimer = setInterval(() => {
    if (refreshing || stopped) return;
    refreshing = refresh()
      .catch((err: Error) => log.warn({ err: err.message }, 'could not re-read abonnementen'))
      .finally(() => (refreshing = undefined));
  }, config.NRC_REFRESH_MS);
  const retentionMs = config.NRC_RETENTION_DAYS * DAY;
  const doSweep = () => sweep(mongo.db, clock.now(), retentionMs);
  const sweepTimer = setInterval(() => void doSweep().catch((err: Error) => log.warn({ err: err.message }, 'retention sweep failed')), SWEEP_EVERY_MS);
  void doSweep().catch(() => undefined);
  deliverer.schedulePump();

  return {
    deliverer,
    registry,
    refresh,
    sweep: doSweep,
    stop: async () => {
      stopped = true;
      clearInterval(refreshTimer);
      clearInterval(sweepTimer);
      await intake?.stop();
      await refreshing;
      await deliverer.stop();
      await mongo.client.close();
    },
  };
}

/** The Kafka consumer of the kanaal topics; subscribing again (a new kanaal) replaces the consumer. */
class Intake {
  private consumer?: Consumer;
  private stopped = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly prefix: string,
    private readonly log: Logger,
    private readonly handler: ReturnType<typeof intakeHandler>,
  ) {}

  private chain: Promise<void> = Promise.resolve();

  /** Subscribes to these topics, after any subscribing in progress. */
  subscribe(topics: string[]): Promise<void> {
    const run = this.chain.catch(() => undefined).then(() => this.replace(topics));
    this.chain = run;
    return run;
  }

  private async replace(topics: string[]): Promise<void> {
    if (this.stopped) return;
    await this.consumer?.disconnect().catch(() => undefined);
    await ensureTopics(this.kafka, this.prefix, topics);
    const consumer = this.kafka.consumer({ groupId: groupId(this.prefix), retry: { retries: 100, initialRetryTime: 500, maxRetryTime: 10_000 } });
    consumer.on(consumer.events.CRASH, ({ payload }) => this.log.error({ err: payload.error?.message, restart: payload.restart }, 'notifier consumer stopped on an error'));
    this.consumer = consumer;
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: topics.map((t) => topicName(this.prefix, t)), fromBeginning: true });
      await consumer.run({ eachBatchAutoResolve: false, eachBatch: (p) => this.handler(p as never) });
    } catch (err) {
      await consumer.disconnect().catch(() => undefined);
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.chain.catch(() => undefined);
    await this.consumer?.disconnect();
  }
}

