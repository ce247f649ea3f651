import { Kafka, logLevel, type IHeaders, type Producer } from 'kafkajs';
import { topicName } from './events';
import { inParts } from './in-parts';

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

/**
 * The largest message a topic of the platform takes (`max.message.bytes`, at creation). The broker's default of 1 MB
 * is less than one event can weigh: an update's audit entry holds the object before and after, and an object may be
 * a request body of BODY_LIMIT_BYTES (1 MB). A message the broker refuses would be sent again and again, holding up
 * every event after it. Consumers fetch a larger message all the same (a fetch returns at least one whole batch).
 */
export const KAFKA_MESSAGE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Creates the topics of these kanalen when missing (subscribing to a missing topic fails), each taking messages of
 * up to KAFKA_MESSAGE_MAX_BYTES. A topic there already keeps its settings (docs/operating.md: raising it).
 */
export async function ensureTopics(kafka: Kafka, prefix: string, kanalen: readonly string[], config: Record<string, string> = {}): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const settings = { 'max.message.bytes': String(KAFKA_MESSAGE_MAX_BYTES), ...config };
    const configEntries = Object.entries(settings).map(([name, value]) => ({ name, value }));
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

/**
 * The most bytes one send to Kafka carries. The broker refuses a record batch larger than its `message.max.bytes`
 * (1 MB by default), and kafkajs sends the messages of one partition in one request as one batch: a refused batch
 * would be sent again and again, holding up everything after it. Half the broker's default leaves room for each
 * record's own framing.
 */
export const KAFKA_SEND_BYTES = 512 * 1024;

/** A message as it is sent: its key, value and headers. */
interface Sized {
  key?: string | Buffer | null;
  value: string | Buffer | null;
  headers?: IHeaders;
}

const bytesOf = (v: string | Buffer | null | undefined) => (v == null ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length);

/** About what a message weighs in a record batch: key, value, headers, and the record's framing. */
export function messageBytes(m: Sized): number {
  let n = 64 + bytesOf(m.key) + bytesOf(m.value);
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    for (const one of Array.isArray(v) ? v : [v]) n += 8 + Buffer.byteLength(k) + bytesOf(one);
  }
  return n;
}

/** Items to send in parts of at most `max` bytes each (by `bytes`), in their order: each part one send (inParts). */
export function inSendParts<T>(items: readonly T[], bytes: (item: T) => number, max = KAFKA_SEND_BYTES): T[][] {
  return inParts(items, bytes, max);
}
