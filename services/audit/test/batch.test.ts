import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { AUDIT_READS_COLLECTION, AUDITTRAIL_COLLECTION, CE_TENANT, createLogger, DEFAULT_TENANT } from '@zgw/shared';
import type { OffsetsByTopicPartition } from 'kafkajs';
import { batchHandler, type BatchPayload } from '../src/batch';
import { parseEntry, type AuditCollection, type StoredEntry } from '../src/entries';
import type { EntryStore, StoreResult } from '../src/store';
import { auditEntry, readEntry } from './fixtures';

// The batch handler without a broker: what it stores, and which offsets it resolves and commits, and when.

/** An in-memory store that keeps the first of each `_id`, failing its first `failures` calls as an unreachable database does. */
class MemoryStore implements EntryStore {
  readonly docs = new Map<string, Map<string, StoredEntry>>();
  calls = 0;
  constructor(
    private failures = 0,
    private readonly events: string[] = [],
  ) {}
  async insertAbsent(collection: AuditCollection, entries: StoredEntry[]): Promise<StoreResult> {
    this.calls++;
    if (this.failures > 0) {
      this.failures--;
      this.events.push('store failed');
      throw new Error('connect ECONNREFUSED 127.0.0.1:27017');
    }
    const coll = this.docs.get(collection) ?? new Map<string, StoredEntry>();
    this.docs.set(collection, coll);
    let inserted = 0;
    for (const e of entries) {
      if (coll.has(e._id)) continue;
      coll.set(e._id, e);
      inserted++;
    }
    this.events.push(`stored ${entries.length}`);
    return { inserted, present: entries.length - inserted, rejected: [] };
  }
  ids(collection: string): string[] {
    return [...(this.docs.get(collection)?.keys() ?? [])];
  }
}

/** A fake payload that records resolve/commit/heartbeat in order; `running` can be switched off by a test. */
function payload(
  topic: string,
  values: (string | null)[],
  events: string[],
  state = { running: true, stale: false },
): BatchPayload & { committed: () => number | undefined } {
  let resolved: string | undefined;
  let committed: number | undefined;
  const offsets = (): OffsetsByTopicPartition => ({
    topics: resolved === undefined ? [] : [{ topic, partitions: [{ partition: 0, offset: String(Number(resolved) + 1) }] }],
  });
  return {
    batch: { topic, partition: 0, messages: values.map((v, i) => ({ offset: String(100 + i), value: v === null ? null : Buffer.from(v) })) },
    resolveOffset: (o) => {
      resolved = o;
      events.push(`resolve ${o}`);
    },
    heartbeat: async () => {
      events.push('heartbeat');
    },
    commitOffsetsIfNecessary: async (o) => {
      const p = o?.topics[0]?.partitions[0];
      if (p) committed = Number(p.offset);
      events.push(`commit ${p?.offset}`);
    },
    uncommittedOffsets: offsets,
    isRunning: () => state.running,
    isStale: () => state.stale,
    committed: () => committed,
  };
}

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { log: createLogger('audit', 'debug', stream), lines };
}

const noWait = async () => undefined;

describe('audit batch handler', () => {
  it('files each entry in the trail of the tenant its message names (CloudEvents extension tenant)', async () => {
    const events: string[] = [];
    const store = new MemoryStore(0, events);
    const [a, b] = [auditEntry(), auditEntry()];
    const p = payload('audit', [JSON.stringify(a), JSON.stringify(b)], events);
    p.batch.messages[0]!.headers = { [CE_TENANT]: Buffer.from('123456782') };
    p.batch.messages[1]!.headers = { [CE_TENANT]: Buffer.from('111222333') };
    await batchHandler({ store, log: capture().log, prefix: '', defaultTenant: DEFAULT_TENANT, sleep: noWait })(p);
    expect(store.docs.get(AUDITTRAIL_COLLECTION)!.get(a.uuid)!._tenant).toBe('123456782');
    expect(store.docs.get(AUDITTRAIL_COLLECTION)!.get(b.uuid)!._tenant).toBe('111222333');
  });

  it('drops the entries of an organisation that no longer exists (removed while they waited), and asks once a chunk', async () => {
    const events: string[] = [];
    const store = new MemoryStore(0, events);
    const [kept, gone, gone2, old] = [auditEntry(), auditEntry(), auditEntry(), auditEntry()];
    const p = payload(
      'audit',
      [kept, gone, gone2, old].map((e) => JSON.stringify(e)),
      events,
    );
    p.batch.messages[0]!.headers = { [CE_TENANT]: Buffer.from('123456782') };
    p.batch.messages[1]!.headers = { [CE_TENANT]: Buffer.from('111222333') };
    p.batch.messages[2]!.headers = { [CE_TENANT]: Buffer.from('111222333') };
    const asked: string[] = [];
    const tenantExists = async (tenant: string) => (asked.push(tenant), tenant === '123456782');
    const { log, lines } = capture();
    await batchHandler({ store, log, prefix: '', defaultTenant: DEFAULT_TENANT, tenantExists, sleep: noWait })(p);
    // the default tenant's (a message naming none) is never asked about
    expect(store.ids(AUDITTRAIL_COLLECTION).sort()).toEqual([kept.uuid, old.uuid].sort());
    expect(asked.sort()).toEqual(['111222333', '123456782']);
    expect(lines.filter((l) => l.dropped === 2)).toHaveLength(1);
    // and the offsets go on: the dropped entries are done with
    expect(p.committed()).toBe(104);
  });

  it('drops the entries of an organisation removed after the handler stored some of it (nothing remembered)', async () => {
    const store = new MemoryStore(0, []);
    let exists = true;
    const handler = batchHandler({
      store,
      log: capture().log,
      prefix: '',
      defaultTenant: DEFAULT_TENANT,
      tenantExists: async () => exists,
      sleep: noWait,
    });
    const of = (e: ReturnType<typeof auditEntry>) => {
      const p = payload('audit', [JSON.stringify(e)], []);
      p.batch.messages[0]!.headers = { [CE_TENANT]: Buffer.from('123456782') };
      return p;
    };
    const [before, after] = [auditEntry(), auditEntry()];
    await handler(of(before));
    exists = false;
    await handler(of(after));
    expect(store.ids(AUDITTRAIL_COLLECTION)).toEqual([before.uuid]);
  });

  it('drops the entries of objects a destruction list destroyed; a read entry that also showed others keeps only those', async () => {
    const gone = 'http://127.0.0.1:8000/zaken/api/v1/zaken/00000000-0000-4000-8000-00000000aaaa';
    const kept = 'http://127.0.0.1:8000/zaken/api/v1/zaken/00000000-0000-4000-8000-00000000bbbb';
    const asked: [string, string[]][] = [];
    const vernietigd = async (tenant: string, urls: string[]) => (asked.push([tenant, [...urls].sort()]), new Set(urls.filter((u) => u === gone)));
    const store = new MemoryStore(0, []);
    const handler = batchHandler({ store, log: capture().log, prefix: '', defaultTenant: DEFAULT_TENANT, vernietigd, sleep: noWait });
    const [write, other] = [auditEntry({ hoofdObject: gone, resourceUrl: gone }), auditEntry({ hoofdObject: kept, resourceUrl: kept })];
    await handler(
      payload(
        'audit',
        [write, other].map((e) => JSON.stringify(e)),
        [],
      ),
    );
    expect(store.ids(AUDITTRAIL_COLLECTION)).toEqual([other.uuid]);
    expect(asked).toEqual([[DEFAULT_TENANT, [gone, kept].sort()]]);
    const [alone, both] = [
      readEntry({ hoofdObject: gone, resourceUrl: gone }),
      readEntry({ hoofdObject: undefined, resourceUrl: undefined, hoofdObjecten: [gone, kept], getoond: [0, 1] } as never),
    ];
    await handler(
      payload(
        'audit-reads',
        [alone, both].map((e) => JSON.stringify(e)),
        [],
      ),
    );
    expect(store.ids(AUDIT_READS_COLLECTION)).toEqual([both.uuid]);
    const stored = store.docs.get(AUDIT_READS_COLLECTION)!.get(both.uuid)!;
    expect(stored.hoofdObjecten).toEqual([kept]);
    expect(stored.getoond).toEqual([['zaak', kept, 0]]);
  });

  it('stores the entries of a batch by uuid and commits after the store, chunk by chunk', async () => {
    const events: string[] = [];
    const store = new MemoryStore(0, events);
    const entries = Array.from({ length: 5 }, () => auditEntry());
    const p = payload(
      'pfx-audit',
      entries.map((e) => JSON.stringify(e)),
      events,
    );
    await batchHandler({ store, log: capture().log, prefix: 'pfx-', defaultTenant: DEFAULT_TENANT, chunkSize: 2, sleep: noWait })(p);
    expect(store.ids(AUDITTRAIL_COLLECTION)).toEqual(entries.map((e) => e.uuid));
    // a message that names no tenant (published before tenants) is the default tenant's
    expect(store.docs.get(AUDITTRAIL_COLLECTION)!.get(entries[0]!.uuid)).toEqual({ _id: entries[0]!.uuid, ...entries[0], _tenant: DEFAULT_TENANT });
    // Each chunk: stored, then its last offset resolved and committed (the committed offset is the next to read).
    expect(events).toEqual([
      'stored 2',
      'resolve 101',
      'commit 102',
      'heartbeat',
      'stored 2',
      'resolve 103',
      'commit 104',
      'heartbeat',
      'stored 1',
      'resolve 104',
      'commit 105',
      'heartbeat',
    ]);
  });

  it('stores read entries of topic audit-reads in auditreads', async () => {
    const store = new MemoryStore();
    const reads = [readEntry(), readEntry({ actie: 'list', resourceUrl: undefined, hoofdObject: undefined, aantal: 3 })];
    await batchHandler({ store, log: capture().log, prefix: '', defaultTenant: DEFAULT_TENANT, sleep: noWait })(
      payload(
        'audit-reads',
        reads.map((r) => JSON.stringify(r)),
        [],
      ),
    );
    expect(store.ids(AUDIT_READS_COLLECTION)).toEqual(reads.map((r) => r.uuid));
    expect(store.ids(AUDITTRAIL_COLLECTION)).toEqual([]);
  });

  it('retries while the database is unreachable, committing nothing until the entries are stored', async () => {
    const events: string[] = [];
    const store = new MemoryStore(3, events);
    const { log, lines } = capture();
    const waits: number[] = [];
    const entries = [auditEntry(), auditEntry()];
    const p = payload(
      'audit',
      entries.map((e) => JSON.stringify(e)),
      events,
    );
    await batchHandler({
      store,
      log,
      prefix: '',
      defaultTenant: DEFAULT_TENANT,
      retry: { initialMs: 100, maxMs: 300 },
      sleep: async (ms) => void waits.push(ms),
    })(p);
    expect(store.ids(AUDITTRAIL_COLLECTION)).toEqual(entries.map((e) => e.uuid));
    expect(events).toEqual([
      'store failed',
      'heartbeat',
      'store failed',
      'heartbeat',
      'store failed',
      'heartbeat',
      'stored 2',
      'resolve 101',
      'commit 102',
      'heartbeat',
    ]);
    expect(waits).toEqual([100, 200, 300]);
    // One warning for the outage, one line when it is over.
    expect(lines.filter((l) => l.msg === 'audit store unreachable: the entries wait in Kafka, retried with backoff')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'audit store reachable again')).toHaveLength(1);
  });

  it('stops retrying without committing when the consumer stops during an outage; the next delivery stores everything', async () => {
    const events: string[] = [];
    const store = new MemoryStore(Number.MAX_SAFE_INTEGER, events);
    const state = { running: true, stale: false };
    const entries = [auditEntry(), auditEntry(), auditEntry()];
    const values = entries.map((e) => JSON.stringify(e));
    const p = payload('audit', values, events, state);
    let waits = 0;
    await batchHandler({
      store,
      log: capture().log,
      prefix: '',
      defaultTenant: DEFAULT_TENANT,
      sleep: async () => void (++waits === 5 && (state.running = false)),
    })(p);
    expect(store.calls).toBe(5);
    expect(events.filter((e) => e.startsWith('resolve') || e.startsWith('commit'))).toEqual([]);
    expect(p.committed()).toBeUndefined();

    // Redelivered (nothing was committed) once the database is back.
    const back = new MemoryStore();
    const again = payload('audit', values, []);
    await batchHandler({ store: back, log: capture().log, prefix: '', defaultTenant: DEFAULT_TENANT, sleep: noWait })(again);
    expect(back.ids(AUDITTRAIL_COLLECTION)).toEqual(entries.map((e) => e.uuid));
    expect(again.committed()).toBe(103);
  });

  it('a stop between chunks: what was stored is committed, the rest is left for the next delivery', async () => {
    const state = { running: true, stale: false };
    const entries = Array.from({ length: 6 }, () => auditEntry());
    const store = new (class extends MemoryStore {
      override async insertAbsent(c: AuditCollection, e: StoredEntry[]) {
        if (this.calls === 1) state.running = false; // the stop comes while the second chunk is being stored
        return super.insertAbsent(c, e);
      }
    })();
    const p = payload(
      'audit',
      entries.map((e) => JSON.stringify(e)),
      [],
      state,
    );
    await batchHandler({ store, log: capture().log, prefix: '', defaultTenant: DEFAULT_TENANT, chunkSize: 2, sleep: noWait })(p);
    expect(store.ids(AUDITTRAIL_COLLECTION)).toEqual(entries.slice(0, 4).map((e) => e.uuid));
    expect(p.committed()).toBe(104);
  });

  it('passes over messages that are no entry, with a warning that holds no content, and stores the rest', async () => {
    const events: string[] = [];
    const store = new MemoryStore(0, events);
    const { log, lines } = capture();
    const good = auditEntry();
    const secret = 'bsn 111222333 and secret s3cr3t';
    const bad = [
      null,
      `{"uuid": "${randomUUID()}", ${secret}`,
      JSON.stringify([secret]),
      JSON.stringify({ ...auditEntry(), uuid: secret }),
      JSON.stringify({ ...auditEntry(), aanmaakdatum: secret }),
      JSON.stringify({ ...auditEntry(), hoofdObject: undefined, toelichting: secret }),
      JSON.stringify({ ...auditEntry(), $where: secret }),
    ];
    const p = payload('audit', [...bad, JSON.stringify(good)], events);
    await batchHandler({ store, log, prefix: '', defaultTenant: DEFAULT_TENANT, sleep: noWait })(p);
    expect(store.ids(AUDITTRAIL_COLLECTION)).toEqual([good.uuid]);
    expect(p.committed()).toBe(100 + bad.length + 1);
    const skipped = lines.filter((l) => l.msg === 'audit message skipped: not an audit entry');
    expect(skipped.map((l) => l.offset)).toEqual(bad.map((_, i) => String(100 + i)));
    expect(skipped.map((l) => l.reason)).toEqual([
      'empty message',
      'not JSON',
      'not a JSON object',
      'no valid uuid',
      'no valid aanmaakdatum',
      'no hoofdObject',
      'field name starting with $',
    ]);
    const all = JSON.stringify(lines);
    expect(all).not.toContain('111222333');
    expect(all).not.toContain('s3cr3t');
  });

  it('commits a batch of nothing but bad messages, so they never hold up the partition', async () => {
    const events: string[] = [];
    const store = new MemoryStore(0, events);
    const p = payload('audit', ['nope', '{}'], events);
    await batchHandler({ store, log: capture().log, prefix: '', defaultTenant: DEFAULT_TENANT, sleep: noWait })(p);
    expect(store.calls).toBe(0);
    expect(p.committed()).toBe(102);
  });

  it('requires of a read entry its client id', () => {
    expect(parseEntry('audit-reads', Buffer.from(JSON.stringify(readEntry()))).entry).toBeDefined();
    expect(parseEntry('audit-reads', Buffer.from(JSON.stringify({ ...readEntry(), clientId: undefined }))).reason).toBe('no clientId');
    expect(parseEntry('audit-reads', Buffer.from(JSON.stringify({ ...readEntry(), hoofdObject: 5 }))).reason).toBe('hoofdObject is not a string');
    const shown = (getoond: unknown) => parseEntry('audit-reads', Buffer.from(JSON.stringify({ ...readEntry(), hoofdObjecten: ['a'], getoond })));
    for (const getoond of [[['zaak', 'a', 1]], [0, 1], undefined]) expect(shown(getoond).reason).toBe('getoond does not match hoofdObjecten');
    for (const getoond of [[-1], ['a'], [['zaak', 'a']]]) expect(shown(getoond).reason).toBe('getoond is not valid');
    expect(parseEntry('audit-reads', Buffer.from(JSON.stringify({ ...readEntry(), hoofdObjecten: ['a'], getoond: [0] }))).entry?.getoond).toEqual([
      ['zaak', 'a', 0],
    ]);
    expect(parseEntry('audit-reads', Buffer.from(JSON.stringify({ ...readEntry(), hoofdObjecten: 'a' }))).reason).toBe(
      'hoofdObjecten is not a list of strings',
    );
  });
});
