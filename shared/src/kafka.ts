import { Kafka, logLevel, type Producer } from 'kafkajs';
import { topicName } from './events';

/**
 * kafkajs logs every failed reconnect; the relay and the consumers report broker outages themselves
 * (once per outage), so kafkajs' own logging stays off.
 */
export function createKafka(brokers: string, clientId: string): Kafka {
  return new Kafka({
    clientId,
    brokers: brokers
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    connectionTimeout: 3000,
    requestTimeout: 10000,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2000 },
    logLevel: logLevel.NOTHING,
  });
}

/** Creates the topics of these kanalen when missing (subscribing to a missing topic fails). */
export async function ensureTopics(kafka: Kafka, prefix: string, kanalen: readonly string[], config: Record<string, string> = {}): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const configEntries = Object.entries(config).map(([name, value]) => ({ name, value }));
    await admin.createTopics({
      topics: kanalen.map((k) => ({ topic: topicName(prefix, k), numPartitions: 1, configEntries })),
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
}

export async function createProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  await producer.connect();
  return producer;
}
