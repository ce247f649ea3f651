import type { Kafka, Producer } from 'kafkajs';
import {
  KANALEN,
  atPlatformLevel,
  createProducer,
  endSpans,
  ensureTopics,
  isKanaalTopic,
  tenantTopic,
  eventHeaders,
  inSendParts,
  messageBytes,
  startSendSpan,
  topicName,
  traceHeaders,
  type Logger,
} from '@zgw/shared';
import type { Collection, Document } from 'mongodb';
import { groupBy } from './group';
import { OUTBOX_POINTERS, type OutboxPointer, type Store, type Stored } from './store';

const BATCH = 200;
/** The outbox pointers the backlog reads to count waiting events (see backlog()). */
const BACKLOG_SAMPLE = 1000;
/**
 * How long a write's kick waits before the relay drains: the writes of those milliseconds go out together, in one
 * round of reads, one Kafka batch and one round of clean-up writes, instead of one round per write.
 */
const LINGER_MS = 20;
/** How often the relay also scans every collection for waiting events (a safety net: see OUTBOX_POINTERS). */
const SCAN_EVERY_MS = 5 * 60_000;

/**
 * Publishes the events that writes leave in their documents' outboxes to Kafka, then removes them.
 * It finds its work through the outbox pointers (see OUTBOX_POINTERS), so a sweep costs nothing when nothing waits;
 * at start and every few minutes it also scans every collection for waiting events, as a safety net (events of a write
 * whose process stopped before it wrote the pointer).
 * A write kicks it at once; a periodic sweep picks up what an earlier process left behind (crash, outage).
 * While Kafka is unreachable events simply wait in MongoDB; the API keeps answering.
 * Delivery is at least once: consumers deduplicate on the `event-id` header.
 */
export class OutboxRelay {
  private readonly stores = new Map<string, Store<Document>>();
  private pointers?: Collection<OutboxPointer>;
  private scannedAt = 0;
  private producer?: Producer;
  private timer?: NodeJS.Timeout;
  private dueAt = 0;
  private running = false;
  private again = false;
  private stopped = false;
  private failures = 0;
  /** The organisations' own topics made by this process (KAFKA_TENANT_TOPICS). */
  private readonly tenantTopicsMade = new Set<string>();
  /** The engine of the last failure, named in the log. */
  private failing: 'Kafka' | 'MongoDB' = 'Kafka';

  constructor(
    private readonly kafka: Kafka,
    private readonly topicPrefix: string,
    private readonly pollMs: number,
    private readonly log: Logger,
    /** The CloudEvents `source` of the events (see ceSource). */
    private readonly source: string,
    /** KAFKA_TENANT_TOPICS: each notification also on its organisation's own topic (see tenantTopic). */
    private readonly tenantTopics = false,
  ) {}

  register(store: Store<Document>): void {
    this.stores.set(store.name, store);
    this.pointers ??= store.raw.db.collection<OutboxPointer>(OUTBOX_POINTERS);
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
    else if (this.failures === 0) this.schedule(LINGER_MS);
  };

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.running) await new Promise((r) => setTimeout(r, 20));
    const producer = this.producer;
    this.producer = undefined; // a drain by hand after the stop connects again
    await producer?.disconnect().catch(() => undefined);
  }

  /**
   * What waits in the outbox, for the metrics and readiness: the events of the writes that have a pointer (counted
   * exactly over the oldest BACKLOG_SAMPLE documents, estimated from their average beyond) and when the oldest of
   * those writes was made.
   */
  async backlog(): Promise<{ events: number; oldest?: Date }> {
    const names = [...this.stores.keys()];
    if (!this.pointers || !names.length) return { events: 0 };
    // every pointer is of a collection of this platform (all instances register the same): the count needs no query
    const [total, sample] = await Promise.all([
      this.pointers.estimatedDocumentCount(),
      this.pointers
        .find({ collection: { $in: names } })
        .sort({ at: 1 })
        .limit(BACKLOG_SAMPLE)
        .toArray(),
    ]);
    if (!sample.length) return { events: 0 };
    let events = 0;
    for (const [name, group] of groupBy(sample, (p) => p.collection)) {
      for (const doc of await this.stores.get(name)!.withEvents(group.map((p) => p.doc))) events += doc._outbox?.length ?? 0;
    }
    return { events: Math.round(events * (total / sample.length)), oldest: sample[0]!.at };
  }

  /** Publishes everything waiting now; returns how many events went out. */
  async drain(): Promise<number> {
    const producer = await this.connect();
    let sent = 0;
    if (Date.now() - this.scannedAt >= SCAN_EVERY_MS) {
      for (const store of this.stores.values()) {
        for (let docs = await store.pending(BATCH); docs.length; docs = docs.length < BATCH ? [] : await store.pending(BATCH)) {
          sent += await this.publish(producer, store, docs);
        }
      }
      this.scannedAt = Date.now();
    }
    const names = [...this.stores.keys()];
    for (;;) {
      const pointers =
        (await this.pointers
          ?.find({ collection: { $in: names } })
          .sort({ at: 1 })
          .limit(BATCH)
          .toArray()) ?? [];
      if (!pointers.length) break;
      for (const [name, group] of groupBy(pointers, (p) => p.collection)) {
        const store = this.stores.get(name)!;
        sent += await this.publish(producer, store, await store.withEvents(group.map((p) => p.doc)));
      }
      // A pointer whose nonce changed belongs to a write that landed meanwhile: it stays for the next round.
      await this.pointers!.deleteMany({ $or: pointers.map((p) => ({ _id: p._id, nonce: p.nonce })) });
      if (pointers.length < BATCH) break;
    }
    return sent;
  }

  /**
   * Sends the events of these documents in one batch, then removes them from the documents (documents found by the
   * scan without events only lose their scan flag).
   */
  private async publish(producer: Producer, store: Store<Document>, docs: Stored<Document>[]): Promise<number> {
    const events = docs.flatMap((d) => d._outbox ?? []);
    if (!events.length) {
      await store.published(docs);
      return 0;
    }
    // Each message continues the trace of the write that stored its event (a PRODUCER span, `traceparent` header).
    const spans = events.map((e) => startSendSpan(e.topic, e.trace));
    const traced = new Map(events.map((e, i) => [e, traceHeaders(spans[i]!)]));
    const messages = events.map((e) => ({
      topic: e.topic,
      m: {
        key: e.key,
        value: JSON.stringify(e.payload),
        headers: { ...eventHeaders(this.source, e.topic, e.id, e.payload, e.createdAt, e.tenant), ...traced.get(e) },
      },
    }));
    // (with KAFKA_TENANT_TOPICS: each notification once more, as it is, on its organisation's own topic)
    const copies = this.tenantTopics
      ? events.flatMap((e, i) => (e.tenant && isKanaalTopic(e.topic) ? [{ topic: tenantTopic(e.tenant, e.topic), m: messages[i]!.m }] : []))
      : [];
    try {
      await this.ensureTenantTopics(copies.map((c) => c.topic));
      // in parts the broker takes (each topic's events stay in their order: the parts go one after another)
      for (const part of inSendParts([...messages, ...copies], ({ m }) => messageBytes(m)))
        await producer.sendBatch({
          acks: -1,
          topicMessages: [...groupBy(part, ({ topic }) => topic)].map(([topic, ms]) => ({
            topic: topicName(this.topicPrefix, topic),
            messages: ms.map(({ m }) => m),
          })),
        });
    } catch (err) {
      endSpans(spans, 'not published: Kafka unreachable');
      throw new KafkaFailure(err);
    }
    endSpans(spans);
    await store.published(docs);
    return events.length;
  }

  /** Makes the organisations' own topics this batch needs that this process has not made yet. */
  private async ensureTenantTopics(topics: string[]): Promise<void> {
    const missing = [...new Set(topics)].filter((t) => !this.tenantTopicsMade.has(t));
    if (!missing.length) return;
    await ensureTopics(this.kafka, this.topicPrefix, missing);
    for (const t of missing) this.tenantTopicsMade.add(t);
  }

  private async connect(): Promise<Producer> {
    if (this.producer) return this.producer;
    try {
      await ensureTopics(this.kafka, this.topicPrefix, [...KANALEN, 'audit']);
      this.producer = await createProducer(this.kafka);
    } catch (err) {
      throw new KafkaFailure(err);
    }
    return this.producer;
  }

  /** Runs the relay in `ms`, unless a run is already due sooner (so a stream of kicks never postpones it). */
  private schedule(ms: number): void {
    if (this.stopped) return;
    const due = Date.now() + ms;
    if (this.timer && this.dueAt <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = due;
    // At platform level: a kick from a request would otherwise carry that request's tenant into every later run.
    this.timer = setTimeout(
      () =>
        atPlatformLevel(() => {
          this.timer = undefined;
          void this.run();
        }),
      ms,
    );
  }

  private async run(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = true;
    this.again = false;
    let next = this.pollMs;
    try {
      const sent = await this.drain();
      if (this.failures) this.log.info({ sent, afterFailures: this.failures }, `outbox relay recovered: ${this.failing} reachable again`);
      this.failures = 0;
      if (this.again) next = LINGER_MS;
    } catch (err) {
      this.failures++;
      const kafka = err instanceof KafkaFailure;
      this.failing = kafka ? 'Kafka' : 'MongoDB';
      if (kafka) {
        // a new producer at the next run (the old one's connection is what failed: its disconnect may fail too)
        const producer = this.producer;
        this.producer = undefined;
        await producer
          ?.disconnect()
          .catch((e: Error) => this.log.debug({ err: e.message }, 'outbox relay: the failed producer did not disconnect cleanly'));
      }
      next = Math.min(this.pollMs * 2 ** Math.min(this.failures, 4), 30_000);
      // One warning per outage, then only at debug level: a stopped engine should not flood the log.
      const what = kafka
        ? 'outbox relay cannot publish to Kafka; events wait in MongoDB'
        : 'outbox relay cannot read or clear the outboxes in MongoDB; retried with backoff';
      if (this.failures === 1) this.log.warn({ err, engine: this.failing, retryMs: next }, what);
      else this.log.debug({ err, engine: this.failing, failures: this.failures }, 'outbox relay still failing');
    } finally {
      this.running = false;
      this.schedule(next);
    }
  }
}

/** A failure of Kafka (topics, producer, send), told apart from MongoDB's (reading and clearing outboxes) in the log. */
class KafkaFailure extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}
