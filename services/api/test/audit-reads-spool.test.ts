import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Consumer } from 'kafkajs';
import { AUDIT_READS_TOPIC, EVENT_ID_HEADER, createKafka, ensureTopics, readEntryParts, topicName, type ReadEntry } from '@zgw/shared';
import { unsentBytes } from '../src/common/audit/audit-spool';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, startApp, type TestApp } from './harness';
import { CRS, createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';

// With Kafka unreachable the API keeps answering reads; their entries wait in the spool on disk, and the next
// instance on the same spool directory sends them.
let sl: Referentielijsten;
const consumers: Consumer[] = [];
const apps: TestApp[] = [];
const dir = mkdtempSync(join(tmpdir(), 'zgw-reads-spool-'));

beforeAll(async () => {
  sl = await startReferentielijsten();
});
afterAll(async () => {
  for (const c of consumers) await c.disconnect();
  for (const a of apps) await a.close();
  await sl.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Every entry in the spool files under `root`, adopted spools included, as they are now. A line that is no entry is
 * left out, as the spool's own reader leaves it out: one cut short on purpose below, or the last one while the API is
 * appending it.
 */
function spooled(root: string): ReadEntry[] {
  const out: ReadEntry[] = [];
  for (const name of present(() => readdirSync(root)) ?? []) {
    const path = join(root, name);
    if (present(() => statSync(path).isDirectory())) out.push(...spooled(path));
    else if (name.endsWith('.jsonl')) for (const line of (present(() => readFileSync(path, 'utf8')) ?? '').split('\n')) out.push(...entryIn(line));
  }
  return out;
}

/** What `read` gives, or undefined when its file went meanwhile (the publisher removes the segments it sent). */
function present<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

const entryIn = (line: string): ReadEntry[] => {
  try {
    return [JSON.parse(line) as ReadEntry];
  } catch {
    return [];
  }
};

/** The read entries that reach topic `audit-reads` under `prefix`, by their event id. */
async function received(prefix: string): Promise<Map<string, ReadEntry>> {
  const kafka = createKafka(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092', 'reads-spool-test');
  await ensureTopics(kafka, prefix, [AUDIT_READS_TOPIC]);
  const got = new Map<string, ReadEntry>();
  const consumer = kafka.consumer({ groupId: `${prefix}reads-spool` });
  consumers.push(consumer);
  await consumer.connect();
  await consumer.subscribe({ topic: topicName(prefix, AUDIT_READS_TOPIC), fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) =>
      void got.set(message.headers![EVENT_ID_HEADER]!.toString(), JSON.parse(message.value!.toString()) as ReadEntry),
  });
  return got;
}

it('keeps the entries of reads made while Kafka is unreachable and sends them from the next instance', async () => {
  const down = await startApp({ REFERENTIELIJSTEN_URL: sl.url, KAFKA_BROKERS: '127.0.0.1:1', AUDIT_SPOOL_DIR: dir });
  const s = await zaaktypeMetOnderdelen(down, sl);
  const zaak = await createZ(down, 'zaken', zaakBody(s.zaaktype));
  for (let i = 0; i < 5; i++) expect((await down.call('GET', zaak.url, undefined, { headers: CRS })).statusCode).toBe(200);
  const own = down.deps.reads!.spoolDir!;
  const waiting = spooled(own).filter((e) => e.resourceUrl === zaak.url);
  expect(waiting).toHaveLength(5);
  // The publisher tried and failed; nothing counts as sent.
  expect(await eventually(async () => !down.deps.reads!.healthy)).toBe(true);
  expect(await unsentBytes(own)).toBeGreaterThan(0);
  await down.close(); // stops with the entries unsent: they stay on disk
  expect(spooled(dir).map((e) => e.uuid)).toEqual(expect.arrayContaining(waiting.map((e) => e.uuid)));

  const got = await received(down.topicPrefix);

  // The next instance on this spool directory (Kafka reachable, the same topics) takes the spool over at start.
  const next = await startApp({ AUDIT_SPOOL_DIR: dir, KAFKA_TOPIC_PREFIX: down.topicPrefix });
  apps.push(next);
  expect((await next.call('GET', '/')).statusCode).toBe(200);
  expect(await eventually(async () => waiting.every((e) => got.has(e.uuid)), 60_000)).toBe(true);
  for (const e of waiting) expect(got.get(e.uuid)).toEqual(e);
  // What it sent is gone from the spool; only its own directory is left.
  expect(await eventually(async () => readdirSync(dir).length === 1 && spooled(dir).every((e) => !waiting.some((w) => w.uuid === e.uuid)))).toBe(
    true,
  );
  expect(readdirSync(dir)).toEqual([next.deps.reads!.spoolDir!.split('/').pop()]);
}, 120_000);

it('sends an entry larger than Kafka takes in one message as parts, and the entries after it', async () => {
  // A stopped instance's spool: a list without pages that showed 8,000 objects (about 1.7 MB), then 2,000 detail reads.
  const root = mkdtempSync(join(tmpdir(), 'zgw-reads-large-'));
  const host = hostname().replace(/[^A-Za-z0-9._-]/g, '_') || 'host';
  const dead = join(root, `${host}-4194303-0badcafe`);
  mkdirSync(dead);
  writeFileSync(join(dead, 'owner.json'), JSON.stringify({ host, pid: 4194303, started: new Date().toISOString() }));
  const read = (fields: Partial<ReadEntry>): ReadEntry => ({
    uuid: randomUUID(),
    bron: 'ZRC',
    clientId: 'importeur',
    gebruikersId: 'importeur',
    gebruikersWeergave: 'Import',
    actie: 'retrieve',
    resource: 'zaak',
    request: '/zaken/api/v1/zaken',
    resultaat: 200,
    aanmaakdatum: new Date().toISOString(),
    tenant: '000000000',
    ...fields,
  });
  const zaken = Array.from({ length: 8_000 }, () => `http://zgw.example/zaken/api/v1/zaken/${randomUUID()}`);
  const large = read({
    actie: 'list',
    resource: 'zaakinformatieobject',
    request: '/zaken/api/v1/zaakinformatieobjecten',
    hoofdObjecten: zaken,
    getoond: zaken.map((_, i) => ['zaakinformatieobject', `http://zgw.example/zaken/api/v1/zaakinformatieobjecten/${randomUUID()}`, i]),
    aantal: zaken.length,
  });
  const small = zaken.slice(0, 2_000).map((url) => read({ resourceUrl: url, hoofdObject: url, hoofdObjecten: [url], getoond: [['zaak', url, 0]] }));
  // a large line cut short (no entry): left out, as an unreadable line is, not sent again and again
  const broken = `{"uuid":"${randomUUID()}","request":"${'x'.repeat(300_000)}`;
  writeFileSync(join(dead, '000000000001.jsonl'), [broken, ...[large, ...small].map((e) => JSON.stringify(e))].map((l) => `${l}\n`).join(''));
  const parts = readEntryParts(large);
  expect(parts.length).toBeGreaterThan(5);

  const prefix = `test-${randomUUID().slice(0, 8)}-`;
  const got = await received(prefix);
  const next = await startApp({ AUDIT_SPOOL_DIR: root, KAFKA_TOPIC_PREFIX: prefix });
  apps.push(next);
  const expected = [...parts, ...small];
  expect((await next.call('GET', '/')).statusCode).toBe(200);
  expect(await eventually(async () => expected.every((e) => got.has(e.uuid)), 60_000)).toBe(true);
  for (const e of expected) expect(got.get(e.uuid)).toEqual(e);
  expect(got.size).toBe(expected.length);
  expect(await eventually(async () => readdirSync(root).length === 1 && spooled(root).length === 0)).toBe(true);
  rmSync(root, { recursive: true, force: true });
}, 120_000);
