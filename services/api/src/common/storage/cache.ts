import { randomUUID } from 'node:crypto';
import type { Kafka, Producer } from 'kafkajs';
import { z } from 'zod';
import { consumeTopics, createProducer, ensureTopics, eventHeaders, makeRoom, topicName, type Logger, type RunningConsumer } from '@zgw/shared';

/** The Kafka topic (after the prefix) on which API instances tell each other which cache regions to clear. */
export const CACHE_TOPIC = 'api-cache';

const MAX_ENTRIES = 50_000;

/** Clears only matter for a few minutes: the topic keeps them ten, and a starting instance skips older ones. */
const TOPIC_CONFIG = { 'retention.ms': String(10 * 60_000), 'segment.ms': String(10 * 60_000) };
const RELEVANT_MS = 5 * 60_000;

/**
 * In-process read cache of one region (a component's rendered objects, the credentials, the applicaties).
 * A write anywhere in the region clears it whole: reference data such as catalogi and applicaties is read far more
 * often than written, and whole-region clearing cannot miss a dependency between objects (a zaaktype shows its
 * statustypen). A value loaded while the region was cleared is not kept, so a read racing a write cannot store
 * the old state. Entries also expire after `ttlMs`, the bound on staleness when a clear from another instance is
 * lost (Kafka down).
 */
export class CacheRegion<V = unknown> {
  private entries = new Map<string, { value: V; expires: number }>();
  private generation = 0;
  /** Reads answered from the cache, and reads that loaded (for the metrics). */
  hits = 0;
  misses = 0;

  constructor(private readonly ttlMs: number) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached value of `key`, or `load()`'s (kept unless `keep` says no). */
  async getOrLoad<T extends V>(key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    if (!this.enabled) return load();
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) {
      this.hits++;
      return hit.value as T;
    }
    this.misses++;
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation && keep(value)) {
      makeRoom(this.entries, MAX_ENTRIES);
      this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    }
    return value;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

/** The regions of this API instance; clearing one also tells the other instances (see CacheBroadcast). */
export class Caches {
  private regions = new Map<string, CacheRegion>();
  private broadcast?: (region: string) => void;

  constructor(readonly ttlMs: number) {}

  region<V = unknown>(name: string): CacheRegion<V> {
    let r = this.regions.get(name);
    if (!r) this.regions.set(name, (r = new CacheRegion(this.ttlMs)));
    return r as CacheRegion<V>;
  }

  /** Every region of this instance by name. */
  all(): IterableIterator<[string, CacheRegion]> {
    return this.regions.entries();
  }

  /** Whether this instance keeps region `name` (every instance keeps the same regions). */
  has(name: string): boolean {
    return this.regions.has(name);
  }

  /** Clears a region here and, through the broadcast, in every other instance. */
  clear(name: string): void {
    this.clearLocal(name);
    if (this.ttlMs > 0) this.broadcast?.(name);
  }

  clearLocal(name: string): void {
    this.regions.get(name)?.clear();
  }

  attach(broadcast: (region: string) => void): void {
    this.broadcast = broadcast;
  }
}

/**
 * Clears caches across API instances: each instance sends the regions it wrote to on a Kafka topic and consumes
 * that topic in a consumer group of its own. Sends are coalesced and never block a request; while Kafka is down
 * other instances fall back on the TTL.
 */
export class CacheBroadcast {
  readonly instance = randomUUID();
  private producer?: Producer;
  private consumer?: RunningConsumer;
  private dirty = new Set<string>();
  private sending = false;
  private failing = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly prefix: string,
    private readonly caches: Caches,
    private readonly log: Logger,
    /** The CloudEvents `source` of the clears (see ceSource). */
    private readonly source: string,
  ) {}

  private stopped = false;

  /** Starts sending at once and keeps trying to subscribe until Kafka answers; resolves once subscribed. */
  async start(): Promise<void> {
    if (this.caches.ttlMs <= 0) return;
    this.caches.attach((region) => this.send(region));
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        await this.subscribe();
        return;
      } catch (err) {
        if (attempt === 0) this.log.warn({ err }, 'cannot receive cache clears from other API instances yet; retrying');
        await new Promise((r) => setTimeout(r, Math.min(30_000, 1000 * 2 ** attempt)).unref());
      }
    }
  }

  /**
   * Reads the topic from its start, so a clear sent while this consumer is still joining is not missed; clears from
   * before this instance started (give or take clock skew) concern caches it never had and are skipped.
   */
  private async subscribe(): Promise<void> {
    const startedAt = Date.now();
    await ensureTopics(this.kafka, this.prefix, [CACHE_TOPIC], TOPIC_CONFIG);
    this.consumer = await consumeTopics(
      this.kafka,
      { groupId: `api-cache-${this.instance}`, prefix: this.prefix, topics: [CACHE_TOPIC], log: this.log },
      async (_topic, _id, value, message) => {
        const msg = value as { instance?: string; regions?: string[] } | undefined;
        if (!msg || msg.instance === this.instance || Number(message.timestamp) < startedAt - RELEVANT_MS) return;
        for (const region of msg.regions ?? []) this.caches.clearLocal(region);
      },
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.stop().catch(() => undefined);
    await this.producer?.disconnect().catch(() => undefined);
  }

  private send(region: string): void {
    this.dirty.add(region);
    if (!this.sending) void this.flush();
  }

  private async flush(): Promise<void> {
    this.sending = true;
    try {
      while (this.dirty.size) {
        const regions = [...this.dirty];
        this.dirty.clear();
        try {
          this.producer ??= await createProducer(this.kafka);
          await sendClear(this.producer, this.prefix, this.source, { instance: this.instance, regions });
          if (this.failing) this.log.info('cache clears reach the other API instances again');
          this.failing = false;
        } catch (err) {
          if (!this.failing) this.log.warn({ err }, 'cannot tell other API instances to clear their caches; they fall back on CACHE_TTL_MS');
          this.failing = true;
          return;
        }
      }
    } finally {
      this.sending = false;
    }
  }
}

/** The message of topic `api-cache`: which instance wrote to which regions (every other instance clears them). */
export const CacheClear = z
  .object({ instance: z.string(), regions: z.array(z.string()).min(1) })
  .meta({ description: 'Read-cache regions an API instance (or a tool) wrote to: every other API instance clears them' });
export type CacheClear = z.infer<typeof CacheClear>;

function sendClear(producer: Producer, prefix: string, source: string, clear: CacheClear): Promise<unknown> {
  const headers = eventHeaders(source, CACHE_TOPIC, randomUUID(), { actie: 'clear' });
  return producer.send({ topic: topicName(prefix, CACHE_TOPIC), messages: [{ value: JSON.stringify(clear), headers }] });
}

/** Tells running API instances to clear these regions (for tools that write outside the API, like the CLI). */
export async function announceClear(kafka: Kafka, prefix: string, source: string, regions: string[]): Promise<void> {
  const producer = await createProducer(kafka);
  try {
    await sendClear(producer, prefix, source, { instance: `tool-${randomUUID()}`, regions });
  } finally {
    await producer.disconnect();
  }
}
