import type { Kafka, Producer } from 'kafkajs';
import { EVENT_ID_HEADER, KANALEN, createProducer, ensureTopics, topicName, type Logger, type OutboxEvent } from '@zgw/shared';
import type { Document } from 'mongodb';
import type { Store } from './store';

/**
 * Publishes the events that writes leave in their documents' outboxes to Kafka, then removes them.
 * A write kicks it at once; a periodic sweep picks up what an earlier process left behind (crash, outage).
 * While Kafka is unreachable events simply wait in MongoDB; the API keeps answering.
 * Delivery is at least once: consumers deduplicate on the `event-id` header.
 */
export class OutboxRelay {
  private readonly stores: Store<Document>[] = [];
  private producer?: Producer;
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly kafka: Kafka,
    private readonly topicPrefix: string,
    private readonly pollMs: number,
    private readonly log: Logger,
  ) {}

  register(store: Store<Document>): void {
    this.stores.push(store);
  }

  start(): void {
    this.schedule(0);
  }

  get healthy(): boolean {
    return this.failures === 0;
  }

  kick = (): void => {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else if (this.failures === 0) this.schedule(0);
  };

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.running) await new Promise((r) => setTimeout(r, 20));
    await this.producer?.disconnect().catch(() => undefined);
  }

  /** Publishes everything waiting now; returns how many events went out. */
  async drain(): Promise<number> {
    const producer = await this.connect();
    let sent = 0;
    for (const store of this.stores) {
      for (;;) {
        const docs = await store.pending(200);
        if (!docs.length) break;
        const messages = docs.flatMap((d) => (d._outbox ?? []).map((e) => ({ doc: d._id, e })));
        const byTopic = new Map<string, OutboxEvent[]>();
        for (const { e } of messages) {
          const list = byTopic.get(e.topic) ?? [];
          list.push(e);
          byTopic.set(e.topic, list);
        }
        await producer.sendBatch({
          acks: -1,
          topicMessages: [...byTopic].map(([topic, evs]) => ({
            topic: topicName(this.topicPrefix, topic),
            messages: evs.map((e) => ({ key: e.key, value: JSON.stringify(e.payload), headers: { [EVENT_ID_HEADER]: e.id } })),
          })),
        });
        for (const d of docs) await store.published(d._id, (d._outbox ?? []).map((e) => e.id));
        sent += messages.length;
        if (docs.length < 200) break;
      }
    }
    return sent;
  }

  private async connect(): Promise<Producer> {
    if (this.producer) return this.producer;
    await ensureTopics(this.kafka, this.topicPrefix, [...KANALEN, 'audit']);
    this.producer = await createProducer(this.kafka);
    return this.producer;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), ms);
  }

  private async run(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    this.again = false;
    let next = this.pollMs;
    try {
      const sent = await this.drain();
      if (this.failures) this.log.info({ sent, afterFailures: this.failures }, 'outbox relay recovered: Kafka reachable again');
      this.failures = 0;
      if (this.again) next = 0;
    } catch (err) {
      this.failures++;
      const producer = this.producer;
      this.producer = undefined;
      await producer?.disconnect().catch(() => undefined);
      next = Math.min(this.pollMs * 2 ** Math.min(this.failures, 4), 30_000);
      // One warning per outage, then only at debug level: a stopped broker should not flood the log.
      if (this.failures === 1) this.log.warn({ err: (err as Error).message }, 'outbox relay cannot publish to Kafka; events wait in MongoDB');
      else this.log.debug({ err: (err as Error).message, failures: this.failures }, 'outbox relay still failing');
    } finally {
      this.running = false;
      this.schedule(next);
    }
  }
}
