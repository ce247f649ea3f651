import { Kafka, logLevel, type Producer } from 'kafkajs';
import type { Logger } from './logger';

export function createKafka(brokers: string, clientId: string, log: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers: brokers.split(',').map((b) => b.trim()).filter(Boolean),
    connectionTimeout: 3000,
    requestTimeout: 10000,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2000 },
    logLevel: logLevel.NOTHING,
    logCreator: () => ({ level, log: entry }) => {
      if (level <= logLevel.WARN) log.warn({ kafka: entry.log.message }, 'kafka');
    },
  });
}

export async function createProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  await producer.connect();
  return producer;
}
