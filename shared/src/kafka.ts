import { Kafka, logLevel, type Producer } from 'kafkajs';
import { topicName } from './events';

/**
 * kafkajs 2.2.4 schedules its throttle check with a negative delay whenever it is not throttled; Node.js runs such a
 * timer after 1 ms, as it always did, and since Node.js 24 also prints a TimeoutNegativeWarning each time. That one
 * warning says nothing to an operator, so it is left out; every other warning is printed as before.
 */
let quieted = false;
function withoutNegativeTimeoutWarnings(): void {
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  const quiet = (warning: unknown, options: unknown) =>
    (warning as Error | undefined)?.name === 'TimeoutNegativeWarning' ||
    options === 'TimeoutNegativeWarning' ||
    (options as { type?: string } | undefined)?.type === 'TimeoutNegativeWarning';
  process.emitWarning = ((warning: unknown, options?: unknown, ...rest: unknown[]) => {
    if (!quiet(warning, options)) emit(warning, options, ...rest);
  }) as typeof process.emitWarning;
}

/**
 * kafkajs logs every failed reconnect; the relay and the consumers report broker outages themselves
 * (once per outage), so kafkajs' own logging stays off.
 */
export function createKafka(brokers: string, clientId: string): Kafka {
  if (!quieted) withoutNegativeTimeoutWarnings();
  quieted = true;
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
