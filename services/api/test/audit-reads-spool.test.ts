import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Consumer } from 'kafkajs';
import { AUDIT_READS_TOPIC, EVENT_ID_HEADER, createKafka, ensureTopics, topicName, type ReadEntry } from '@zgw/shared';
import { unsentBytes } from '../src/common/audit/audit-spool';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, startApp, type TestApp } from './harness';
import { CRS, createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';

// With Kafka unreachable the API keeps answering reads; their entries wait in the spool on disk, and the next
// instance on the same spool directory sends them.
let sl: Referentielijsten;
let consumer: Consumer | undefined;
const apps: TestApp[] = [];
const dir = mkdtempSync(join(tmpdir(), 'zgw-reads-spool-'));

beforeAll(async () => {
  sl = await startReferentielijsten();
});
afterAll(async () => {
  await consumer?.disconnect();
  for (const a of apps) await a.close();
  await sl.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every entry in the spool files under `root`, adopted spools included. */
function spooled(root: string): ReadEntry[] {
  const out: ReadEntry[] = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) out.push(...spooled(path));
    else if (name.endsWith('.jsonl'))
      out.push(
        ...readFileSync(path, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as ReadEntry),
      );
  }
  return out;
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

  const kafka = createKafka(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092', 'reads-spool-test');
  await ensureTopics(kafka, down.topicPrefix, [AUDIT_READS_TOPIC]);
  const got = new Map<string, ReadEntry>();
  consumer = kafka.consumer({ groupId: `${down.topicPrefix}reads-spool` });
  await consumer.connect();
  await consumer.subscribe({ topic: topicName(down.topicPrefix, AUDIT_READS_TOPIC), fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) =>
      void got.set(message.headers![EVENT_ID_HEADER]!.toString(), JSON.parse(message.value!.toString()) as ReadEntry),
  });

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
