import { CE_TENANT, endSpans, leesZonder, sleep, startConsumeSpan, TENANT_FIELD, type BatchPayload, type Logger } from '@zgw/shared';
import { COLLECTION_OF, parseEntry, type StoredEntry } from './entries';
import type { EntryStore } from './store';

export type { BatchPayload } from '@zgw/shared';

export interface BatchOptions {
  store: EntryStore;
  log: Logger;
  /** KAFKA_TOPIC_PREFIX: removed from a topic's name to know what it carries. */
  prefix: string;
  /** The tenant of entries whose message names none (sent before tenants): ZGW_DEFAULT_TENANT. */
  defaultTenant: string;
  /**
   * Whether an organisation exists (its record in `tenants`). The entries of one that does not (removed with
   * `tenant-remove` while its entries still waited in Kafka or a spool) are dropped, never stored again. Without it
   * every entry is stored.
   */
  tenantExists?: (tenant: string) => Promise<boolean>;
  /**
   * Which of these main objects (URLs) of an organisation a destruction list destroyed (its register,
   * `vernietigde_objecten`): their entries that reach the worker later (a read spooled, a write delivered again) are
   * dropped, and a read entry that also showed others keeps only those (leesZonder). Without it every entry is stored.
   */
  vernietigd?: (tenant: string, urls: string[]) => Promise<Set<string>>;
  /** Entries per insert (a Kafka batch can hold thousands). */
  chunkSize?: number;
  /** Backoff while the database cannot be reached: first wait, longest wait (ms). */
  retry?: { initialMs: number; maxMs: number };
  /** Waits `ms`, or less once `stop()` says so (tests replace it). */
  sleep?: (ms: number, stop: () => boolean) => Promise<void>;
}

/**
 * The `eachBatch` of the audit worker: stores the batch's entries in chunks, and only once a chunk is stored resolves
 * and commits the offset of its last message. So a stop or crash at any point leaves the uncommitted part to be
 * delivered again (at least once), and storing by `_id` only where absent makes a second delivery harmless (never
 * twice). A message that is no entry is logged (topic, partition, offset and why; never its content) and passed
 * over with its chunk. While the database is unreachable the chunk is retried with backoff, with heartbeats to keep
 * the partition, until it is stored or the consumer stops or rebalances (then nothing of it is committed).
 */
export function batchHandler(opts: BatchOptions): (payload: BatchPayload) => Promise<void> {
  const { store, log, prefix } = opts;
  const chunkSize = opts.chunkSize ?? 500;
  const retry = opts.retry ?? { initialMs: 200, maxMs: 10_000 };
  const wait = opts.sleep ?? sleep;
  // One warning per outage, however many batches and retries it spans; one line when it is over.
  let unreachableSince: number | undefined;
  /**
   * The entries of organisations that exist; the others dropped with a line (a count: an RSIN reads as a BSN). Asked
   * for each chunk, once per organisation in it (nothing remembered: an organisation removed a moment ago is gone).
   */
  const ofExisting = async (entries: StoredEntry[], where: object): Promise<StoredEntry[]> => {
    if (!opts.tenantExists) return entries;
    const existing = new Set([opts.defaultTenant]);
    for (const tenant of new Set(entries.map((e) => e[TENANT_FIELD] as string))) {
      if (!existing.has(tenant) && (await opts.tenantExists(tenant))) existing.add(tenant);
    }
    const kept = entries.filter((e) => existing.has(e[TENANT_FIELD] as string));
    if (kept.length < entries.length)
      log.info({ ...where, dropped: entries.length - kept.length }, 'audit entries of a removed organisation dropped');
    return kept;
  };

  /** The entries without those of destroyed objects (see BatchOptions.vernietigd), asked once per organisation of the chunk. */
  const zonderVernietigd = async (entries: StoredEntry[], where: object): Promise<StoredEntry[]> => {
    if (!opts.vernietigd || !entries.length) return entries;
    const mains = (e: StoredEntry): string[] =>
      Array.isArray(e.hoofdObjecten) ? (e.hoofdObjecten as string[]) : typeof e.hoofdObject === 'string' ? [e.hoofdObject] : [];
    const weg = new Map<string, Set<string>>();
    for (const tenant of new Set(entries.map((e) => e[TENANT_FIELD] as string))) {
      const urls = [...new Set(entries.filter((e) => e[TENANT_FIELD] === tenant).flatMap(mains))];
      if (urls.length) weg.set(tenant, await opts.vernietigd(tenant, urls));
    }
    const kept = entries.flatMap((e): StoredEntry[] => {
      const gone = weg.get(e[TENANT_FIELD] as string);
      if (!gone?.size || !mains(e).some((m) => gone.has(m))) return [e];
      if (!Array.isArray(e.hoofdObjecten)) return [];
      const rest = leesZonder(e as StoredEntry & { hoofdObjecten: string[]; getoond?: [string, string, number][] }, gone);
      return rest ? [rest] : [];
    });
    if (kept.length < entries.length) log.info({ ...where, dropped: entries.length - kept.length }, 'audit entries of destroyed objects dropped');
    return kept;
  };

  return async (payload) => {
    const { batch } = payload;
    const name = batch.topic.startsWith(prefix) ? batch.topic.slice(prefix.length) : batch.topic;
    const collection = COLLECTION_OF[name];
    const where = { topic: batch.topic, partition: batch.partition };
    const halted = () => !payload.isRunning() || payload.isStale();

    for (let i = 0; i < batch.messages.length; i += chunkSize) {
      if (halted()) return;
      const chunk = batch.messages.slice(i, i + chunkSize);
      const entries: StoredEntry[] = [];
      // a CONSUMER span per entry, child of the write (or read) that sent it, ended once the chunk is stored
      const spans = chunk.map((message) => startConsumeSpan(batch.topic, message.headers));
      for (const message of chunk) {
        const parsed = parseEntry(name, message.value);
        // Each entry goes into the trails of the tenant its message names (CloudEvents extension `tenant`).
        const tenant = message.headers?.[CE_TENANT]?.toString() || opts.defaultTenant;
        if (parsed.entry) entries.push({ ...parsed.entry, [TENANT_FIELD]: tenant });
        else log.warn({ ...where, offset: message.offset, reason: parsed.reason }, 'audit message skipped: not an audit entry');
      }
      try {
        if (collection && entries.length) {
          for (let delay = retry.initialMs; ; delay = Math.min(delay * 2, retry.maxMs)) {
            try {
              const r = await store.insertAbsent(collection, await zonderVernietigd(await ofExisting(entries, where), where));
              if (unreachableSince !== undefined) {
                log.info({ ...where, downMs: Date.now() - unreachableSince }, 'audit store reachable again');
                unreachableSince = undefined;
              }
              for (const x of r.rejected) log.error({ ...where, uuid: x.uuid, code: x.code }, 'audit entry refused by the database, skipped');
              log.debug({ ...where, inserted: r.inserted, present: r.present }, 'audit entries stored');
              break;
            } catch (err) {
              if (unreachableSince === undefined) {
                unreachableSince = Date.now();
                log.warn({ ...where, offset: chunk[0]!.offset, err }, 'audit store unreachable: the entries wait in Kafka, retried with backoff');
              }
            }
            await wait(delay, halted);
            if (halted()) return;
            await payload.heartbeat();
          }
        }
      } finally {
        endSpans(spans);
      }
      payload.resolveOffset(chunk[chunk.length - 1]!.offset);
      await payload.commitOffsetsIfNecessary(payload.uncommittedOffsets());
      await payload.heartbeat();
    }
  };
}
