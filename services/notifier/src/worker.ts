import type { Consumer, Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import {
  checkPiiKeys,
  connectMongo,
  createKafka,
  ensureNrcIndexes,
  ensureTopics,
  parseBackoff,
  piiFromConfig,
  topicName,
  untilDone,
  type Config,
  type Logger,
  type Pii,
} from '@zgw/shared';
import { systemClock, type Clock } from './clock';
import { Deliverer } from './deliverer';
import { intakeHandler } from './intake';
import { Lease } from './lease';
import { Registry } from './registry';
import { processResends } from './resends';
import { sweep } from './retention';
import { httpSender, type Sender } from './send';

export interface Notifier {
  /** The database the notifier works in (for readiness checks). */
  readonly db: Db;
  /** This instance's lease: only while it holds it does the worker below run. */
  readonly lease: Lease;
  /** Whether the worker runs (the lease is held and the worker started). */
  readonly active: boolean;
  /** The running worker's deliverer and registry (a standby has none: these throw). */
  readonly deliverer: Deliverer;
  readonly registry: Registry;
  /** Resolves once the worker runs. */
  whenActive(): Promise<void>;
  /** Re-reads abonnementen, kanalen and resend requests now (as every NRC_REFRESH_MS); nothing on a standby. */
  refresh(): Promise<void>;
  /** Removes what is past the retention now (as every hour); nothing on a standby. */
  sweep(): Promise<{ notificaties: number; deliveries: number }>;
  /** Stops consuming, lets deliveries in flight finish and writes their results, releases the lease, then closes. */
  stop(): Promise<void>;
}

export interface NotifierOptions {
  clock?: Clock;
  /** What the lease measures its durations on (monotonic by default). */
  leaseClock?: Clock;
  send?: Sender;
}

/** The consumer group: one per topic prefix, so installations that share a Kafka cluster each receive everything. */
export const groupId = (prefix: string) => `${prefix}zgw-notifier`;

const SWEEP_EVERY_MS = 3_600_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The work of one term of the lease. */
interface Worker {
  deliverer: Deliverer;
  registry: Registry;
  /** Resolves once it consumes; rejects only if it could not start for another reason than a stop. */
  ready: Promise<void>;
  /** Whether it has started and not been stopped. */
  readonly running: boolean;
  refresh(): Promise<void>;
  sweep(): Promise<{ notificaties: number; deliveries: number }>;
  stop(): Promise<void>;
}

/**
 * The NRC fan-out worker: consumes the topic of every kanaal, records a delivery for each matching abonnement
 * (intake.ts), delivers them lane by lane with retries and the lock (deliverer.ts), carries out resends and keeps
 * what it keeps for NRC_RETENTION_DAYS. Waits for MongoDB and Kafka at start if they are not there yet.
 *
 * Any number of instances may run: all of that runs only in the one holding the lease (lease.ts); the others stand
 * by and take over when it stops or stops renewing. Each term starts afresh from MongoDB (the abonnementen, their
 * state, the pending deliveries) and joins the consumer group, whose uncommitted messages it reads again; the
 * recording by id where absent makes that harmless.
 */
export async function startNotifier(config: Config, log: Logger, opts: NotifierOptions = {}): Promise<Notifier> {
  const clock = opts.clock ?? systemClock;
  const leaseMs = config.NRC_LEASE_SECONDS * 1000;
  const timeoutMs = config.NRC_DELIVERY_TIMEOUT_MS;
  if (leaseMs < 2 * timeoutMs) {
    throw new Error(
      `NRC_LEASE_SECONDS (${config.NRC_LEASE_SECONDS}) must be at least twice NRC_DELIVERY_TIMEOUT_MS (${timeoutMs} ms): a delivery starts only when it ends within the lease`,
    );
  }
  // The abonnementen's Authorization headers are stored sealed: without the keys that open them nothing is delivered.
  const pii = piiFromConfig(config, log);
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
  await checkPiiKeys(mongo.db, pii).catch(async (err: unknown) => {
    await mongo.client.close().catch(() => undefined);
    throw err;
  });
  const send = opts.send ?? httpSender(clock, timeoutMs);
  const kafka = createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-notifier`);

  let stopped = false;
  let worker: Worker | undefined;
  let ending: Promise<void> | undefined;
  let activated: (() => void)[] = [];

  const lease: Lease = new Lease({
    db: mongo.db,
    log,
    leaseMs,
    clock: opts.leaseClock,
    mayAcquire: () => !stopped && !worker && !ending,
    onAcquired: () => begin(),
    onLost: () => void end(),
  });

  /** Starts the term's worker; gives the term up if it cannot start. */
  const begin = (): void => {
    const w = startWorker({ config, log, db: mongo.db, pii, kafka, clock, send, allowed: () => lease.valid(timeoutMs) });
    worker = w;
    w.ready.then(
      () => {
        if (worker === w) for (const r of activated.splice(0)) r();
      },
      (err: Error) => {
        if (worker !== w || stopped) return;
        log.error({ err }, 'notifier worker did not start: the lease is given up and taken again');
        lease.drop('worker did not start');
      },
    );
  };

  /** Ends the term's worker (the lease lost, or a stop), at whatever stage; a next term begins only after this. */
  const end = (): Promise<void> => {
    ending ??= (async () => {
      try {
        const w = worker;
        worker = undefined;
        await w?.stop();
      } catch (err) {
        log.error({ err }, 'notifier worker did not stop cleanly');
      } finally {
        ending = undefined;
      }
    })();
    return ending;
  };

  await lease.tick();
  const ticker = setInterval(() => void lease.tick(), lease.interval);
  await worker?.ready.catch(() => undefined);
  if (!lease.holding) log.info({ owner: lease.owner }, 'notifier standing by: another instance holds the lease');

  const current = (): Worker => {
    if (!worker) throw new Error('this notifier instance does not hold the lease');
    return worker;
  };
  return {
    db: mongo.db,
    lease,
    get active() {
      return worker?.running ?? false;
    },
    get deliverer() {
      return current().deliverer;
    },
    get registry() {
      return current().registry;
    },
    whenActive: () => (worker?.running ? Promise.resolve() : new Promise<void>((r) => activated.push(r))),
    refresh: async () => (worker?.running ? worker.refresh() : undefined),
    sweep: async () => (worker?.running ? worker.sweep() : { notificaties: 0, deliveries: 0 }),
    stop: async () => {
      stopped = true;
      await end();
      // Renewed while the worker stopped (its attempts end within the term), released only once it has.
      clearInterval(ticker);
      await lease.release().catch((err: Error) => log.warn({ err }, 'lease not released: another instance takes over once it runs out'));
      activated = [];
      await mongo.client.close();
    },
  };
}

interface WorkerContext {
  config: Config;
  log: Logger;
  db: Db;
  pii: Pii;
  kafka: Kafka;
  clock: Clock;
  send: Sender;
  allowed: () => boolean;
}

/**
 * The worker of one term, returned at once: it starts in the background (waiting for MongoDB and Kafka as long as
 * it takes) and stops at any stage, a start in progress included.
 */
function startWorker(c: WorkerContext): Worker {
  const { config, log, db, clock } = c;
  const deliverer = new Deliverer({
    db,
    log,
    clock,
    send: c.send,
    concurrency: config.NRC_CONCURRENCY,
    perLane: config.NRC_ABONNEMENT_CONCURRENCY,
    lockAfterMs: config.NRC_LOCK_AFTER_HOURS * HOUR,
    backoffMs: parseBackoff(config.NRC_BACKOFF_SECONDS),
    queueLimit: config.NRC_QUEUE_LIMIT,
    allowed: c.allowed,
    defaultTenant: config.ZGW_DEFAULT_TENANT,
  });
  const prefix = config.KAFKA_TOPIC_PREFIX;
  let consuming = false;
  // A new kanaal: consume its topic too (the group starts a new topic at its beginning, so nothing is missed). The old
  // consumer is gone by then, so a failure is tried again with backoff until the consumer is back, as at start (a stop
  // ends the trying).
  const resubscribe = async () => {
    if (consuming)
      await untilDone(
        log,
        'Kafka',
        () => intake.subscribe(registry.topics),
        () => stopped,
      ).catch(() => undefined);
  };
  const registry: Registry = new Registry(db, c.pii, deliverer, resubscribe);
  const intake = new Intake(c.kafka, prefix, log, intakeHandler({ db, defaultTenant: c.config.ZGW_DEFAULT_TENANT, registry, deliverer, clock, log }));
  // One refresh at a time: one asked for while the timer's runs waits for it and then runs itself, so what was
  // requested before the call (a resend) has been taken up when it returns, not by the other one still under way.
  let refreshing: Promise<void> | undefined;
  const refresh = async (): Promise<void> => {
    while (refreshing) await refreshing.catch(() => undefined);
    refreshing = (async () => {
      await registry.refresh();
      await processResends(db, deliverer, (id) => deliverer.lane(id)?.target, clock, log, config.ZGW_DEFAULT_TENANT);
    })().finally(() => (refreshing = undefined));
    return refreshing;
  };
  const retentionMs = config.NRC_RETENTION_DAYS * DAY;
  const doSweep = () => sweep(db, clock.now(), retentionMs);

  let stopped = false;
  let running = false;
  let refreshTimer: NodeJS.Timeout | undefined;
  let sweepTimer: NodeJS.Timeout | undefined;
  const ready = (async () => {
    await untilDone(
      log,
      'MongoDB',
      async () => {
        await registry.ensureIndexes();
        await registry.refresh();
      },
      () => stopped,
    );
    consuming = true;
    await untilDone(
      log,
      'Kafka',
      () => intake.subscribe(registry.topics),
      () => stopped,
    );
    if (stopped) throw new Error('stopped while starting');
    log.info({ topics: registry.topics, prefix, group: groupId(prefix) }, 'notifier consuming');
    refreshTimer = setInterval(() => {
      if (refreshing || stopped) return;
      refresh().catch((err: Error) => log.warn({ err }, 'could not re-read abonnementen'));
    }, config.NRC_REFRESH_MS);
    const sweep = () =>
      void doSweep().catch((err: Error) => log.warn({ err, nextInMs: SWEEP_EVERY_MS }, 'retention sweep failed; tried again later'));
    sweepTimer = setInterval(sweep, SWEEP_EVERY_MS);
    sweep();
    deliverer.schedulePump();
    running = true;
  })();
  // awaited by whoever uses the worker; this only keeps a failed start from being an unhandled rejection meanwhile
  ready.catch(() => undefined);

  return {
    deliverer,
    registry,
    ready,
    get running() {
      return running;
    },
    refresh,
    sweep: doSweep,
    stop: async () => {
      const started = running;
      stopped = true;
      running = false;
      clearInterval(refreshTimer);
      clearInterval(sweepTimer);
      // Both at once: no attempt starts while the consumer leaves the group (what is recorded meanwhile stays pending).
      const leaving = intake.stop().catch((err: Error) => log.warn({ err }, 'notifier consumer did not disconnect cleanly'));
      // A consumer still joining cannot leave before the join ends (kafkajs waits for the request, which can take the
      // session timeout of a member that died): not waited for. It handles nothing once stopped.
      await Promise.all([started ? leaving : undefined, deliverer.stop()]);
      if (started) await ready.catch(() => undefined);
      await refreshing?.catch(() => undefined);
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
    if (this.stopped) return;
    const consumer = this.kafka.consumer({ groupId: groupId(this.prefix), retry: { retries: 100, initialRetryTime: 500, maxRetryTime: 10_000 } });
    consumer.on(consumer.events.CRASH, ({ payload }) =>
      this.log.error({ err: payload.error?.message, restart: payload.restart }, 'notifier consumer stopped on an error'),
    );
    this.consumer = consumer;
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: topics.map((t) => topicName(this.prefix, t)), fromBeginning: true });
      // Once stopped, a batch is not handled (nor its offset committed): the consumer may still be leaving the group.
      await consumer.run({
        eachBatchAutoResolve: false,
        eachBatch: async (p) => {
          if (!this.stopped) await this.handler({ ...p, isRunning: () => !this.stopped && p.isRunning() } as never);
        },
      });
    } catch (err) {
      await consumer.disconnect().catch(() => undefined);
      if (!this.stopped) throw err;
    }
  }

  /** Disconnects, also while joining the group (which can take the session timeout of a member that died). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.disconnect().catch(() => undefined);
    await this.chain.catch(() => undefined);
    await this.consumer?.disconnect();
  }
}
