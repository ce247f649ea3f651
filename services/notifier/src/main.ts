import { KANALEN, consumeTopics, createKafka, createLogger, loadConfig, onShutdown } from '@zgw/shared';

/**
 * NRC fan-out worker: consumes every kanaal topic. Matching abonnementen and delivering to their callbacks
 * arrives with the Notificaties API; until then it records what it would fan out.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('notifier', config.LOG_LEVEL);
  const kafka = createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-notifier`);
  const consumer = await consumeTopics(kafka, { groupId: 'zgw-notifier', prefix: config.KAFKA_TOPIC_PREFIX, topics: KANALEN, log }, async (kanaal, eventId, value) => {
    const n = value as { resource?: string; actie?: string };
    log.debug({ kanaal, eventId, resource: n.resource, actie: n.actie }, 'notification received');
  });
  log.info({ kanalen: KANALEN }, 'notifier consuming');
  onShutdown(log, () => consumer.stop());
}

main().catch((err) => {
  console.error('notifier failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
