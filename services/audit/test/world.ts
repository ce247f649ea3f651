import { randomUUID } from 'node:crypto';
import {
  AUDIT_READS_TOPIC,
  AUDIT_TOPIC,
  EVENT_ID_HEADER,
  connectMongo,
  createKafka,
  createLogger,
  createProducer,
  ensureTopics,
  loadConfig,
  topicName,
  type Config,
  type Mongo,
} from '@zgw/shared';
import type { Admin, Kafka, Producer } from 'kafkajs';
import { groupId } from '../src/worker';

/**
 * A world of its own on the real engines for one test file: a database and a Kafka topic prefix (so a consumer group)
 * nobody else uses, a producer to publish entries as the API does, and a view of what the worker has committed.
 */
export interface World {
  config: Config;
  mongo: Mongo;
  kafka: Kafka;
  /** Publishes messages on `audit` or `audit-reads` as the API does: the JSON entry, event id = its uuid. */
  publish(topic: string, values: (object | string)[]): Promise<void>;
  /** Whether the worker's group has committed everything published on `topic` so far. */
  caughtUp(topic?: string): Promise<boolean>;
  /** How many messages `topic` holds (its high watermark). */
  published(topic?: string): Promise<number>;
  /** The offset the worker's group committed on `topic` (-1: none yet). */
  committed(topic?: string): Promise<number>;
  close(): Promise<void>;
}

export const silent = createLogger('audit', 'silent');

export async function world(env: Record<string, string> = {}): Promise<World> {
  const id = randomUUID().slice(0, 8);
  // `foreign-`: these topics hold what the tests publish as another producer would (poison messages included),
  // not the platform's messages, so the AsyncAPI contract check leaves them out.
  const prefix = env.KAFKA_TOPIC_PREFIX ?? `foreign-${id}-`;
  const config = loadConfig({ ...process.env, MONGODB_DB: `zgw_test_${id}`, KAFKA_TOPIC_PREFIX: prefix, LOG_LEVEL: 'silent', ...env });
  const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  const kafka = createKafka(config.KAFKA_BROKERS, `test-${id}`);
  await ensureTopics(kafka, prefix, [AUDIT_TOPIC, AUDIT_READS_TOPIC]);
  let producer: Producer | undefined;
  let admin: Admin | undefined;
  const adminOf = async () => {
    if (!admin) {
      admin = kafka.admin();
      await admin.connect();
    }
    return admin;
  };
  const published = async (topic = AUDIT_TOPIC) => Number((await (await adminOf()).fetchTopicOffsets(topicName(prefix, topic)))[0]!.high);
  const committed = async (topic = AUDIT_TOPIC) => {
    const [t] = await (await adminOf()).fetchOffsets({ groupId: groupId(prefix), topics: [topicName(prefix, topic)] });
    return Number(t?.partitions[0]?.offset ?? -1);
  };
  return {
    config,
    mongo,
    kafka,
    publish: async (topic, values) => {
      producer ??= await createProducer(kafka);
      await producer.send({
        topic: topicName(prefix, topic),
        acks: -1,
        messages: values.map((v) => {
          const uuid = typeof v === 'object' && 'uuid' in v ? String(v.uuid) : randomUUID();
          return { value: typeof v === 'string' ? v : JSON.stringify(v), headers: { [EVENT_ID_HEADER]: uuid } };
        }),
      });
    },
    published,
    committed,
    caughtUp: async (topic = AUDIT_TOPIC) => (await committed(topic)) >= (await published(topic)),
    close: async () => {
      await producer?.disconnect();
      await admin?.disconnect();
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.client.close();
    },
  };
}

/** Polls `check` until it holds (true) or the time is up (false): for effects that travel through Kafka. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
