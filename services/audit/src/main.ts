import { consumeTopics, createKafka, createLogger, loadConfig, onShutdown } from '@zgw/shared';

/**
 * Audit trail worker: consumes the `audit` topic. Storing audittrail entries (with client-id exclusions)
 * arrives with the Zaken, Documenten and Besluiten APIs, the components that have an audittrail.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger('audit', config.LOG_LEVEL);
  const kafka = createKafka(config.KAFKA_BROKERS, `${config.KAFKA_CLIENT_ID}-audit`);
  const consumer = await consumeTopics(kafka, { groupId: 'zgw-audit', prefix: config.KAFKA_TOPIC_PREFIX, topics: ['audit'], log }, async (_topic, eventId) => {
    log.debug({ eventId }, 'audit event received');
  });
  log.info('audit consuming');
  onShutdown(log, () => consumer.stop());
}

main().catch((err) => {
  console.error('audit failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
