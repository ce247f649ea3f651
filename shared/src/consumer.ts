import type { Kafka, KafkaMessage } from 'kafkajs';
import { EVENT_ID_HEADER, topicName } from './events';
import { ensureTopics } from './kafka';
import type { Logger } from './logger';

export interface RunningConsumer {
  stop(): Promise<void>;
}

/**
 * A Kafka consumer group over some kanaal topics that hands each message with its event id to `handle`.
 * Offsets are committed only after `handle` returns, so a crash redelivers: handlers must be idempotent.
 */
export async function consumeTopics(
  kafka: Kafka,
  opts: { groupId: string; prefix: string; topics: readonly string[]; log: Logger },
  handle: (topic: string, eventId: string | undefined, value: unknown, message: KafkaMessage) => Promise<void>,
): Promise<RunningConsumer> {
  await ensureTopics(kafka, opts.prefix, opts.topics);
  const consumer = kafka.consumer({ groupId: opts.groupId, retry: { retries: 100, initialRetryTime: 500, maxRetryTime: 10_000 } });
  await consumer.connect();
  await consumer.subscribe({ topics: opts.topics.map((t) => topicName(opts.prefix, t)), fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, message }) => {
      let value: unknown;
      try {
        value = message.value ? JSON.parse(message.value.toString()) : undefined;
      } catch {
        opts.log.warn({ topic, offset: message.offset }, 'skipping a message that is not JSON');
        return;
      }
      await handle(topic.slice(opts.prefix.length), message.headers?.[EVENT_ID_HEADER]?.toString(), value, message);
    },
  });
  return { stop: () => consumer.disconnect() };
}

/** Runs `stop` once on SIGTERM/SIGINT, then exits. */
export function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let done = false;
  const handler = (signal: string) => {
    if (done) return;
    done = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    stop()
      .catch((err) => log.error({ err }, 'error during shutdown'))
      .finally(() => {
        clearTimeout(force);
        process.exit(0);
      });
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}
