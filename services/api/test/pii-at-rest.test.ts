import type { ChildProcess } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createKafka } from '@zgw/shared';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, type TestApp } from './harness';
import { LogLines, OVERDRACHTEN, afgelopen, startListeningApp, startWorker, stopWorker, typen, type Typen } from './overdrachten.fixtures';
import { CRS, ZRC, createZ } from './zaken.fixtures';

/**
 * No personal identifier in the clear in any byte the platform writes, against the real engines: after a workload
 * that creates and deletes rollen, and creates, updates and deletes zaakobjecten, with BSNs, A-nummers and anpIdentificaties, reads their
 * audit trail, searches by BSN (a `_zoek` body and query strings) and transfers a zaak with such a rol, a scan of
 * every file the engines wrote meanwhile under the data directory (the store, Kafka's log segments, Temporal's
 * database, the engines' logs), of the read trail's spool and of every message on every topic of the instance finds
 * none of them; a marker written in the same requests (not personal data) is found in the store's files and in
 * Kafka's, so the scan does see what is stored. The values are new for each run: nothing else can have written them.
 */

/** A random BSN that passes the eleven-test (the API takes any nine digits; real-looking ones all the same). */
function bsn(): string {
  for (;;) {
    const d = Array.from({ length: 8 }, (_, i) => (i === 0 ? randomInt(1, 10) : randomInt(0, 10)));
    const sum = d.reduce((s, x, i) => s + x * (9 - i), 0);
    const last = sum % 11;
    if (last <= 9) return [...d, last].join('');
  }
}
const aNummer = () => `${randomInt(1, 10)}${String(randomInt(0, 1e9)).padStart(9, '0')}`;

const BSNS = Array.from({ length: 5 }, bsn);
const A_NUMMERS = [aNummer(), aNummer()];
const ANP = `ANP-${randomInt(1e6, 1e7)}`;
const SECRETS = [...BSNS, ...A_NUMMERS, ANP];
const MARKER = `marker-${randomUUID()}`;
const FILTER = 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn';
const DATA_DIR = process.env.ZGW_DATA_DIR ?? join(__dirname, '..', '..', '..', '.data');
/** Files under the data directory are scanned only on the platform's own engines (npm test starts them). */
const OWN_ENGINES = process.env.ZGW_ENGINES_MANAGED === '1';

const logs = new LogLines();
let t: TestApp;
let sl: Referentielijsten;
let bron: Typen;
let worker: ChildProcess | undefined;
let startedAt: number;

beforeAll(async () => {
  startedAt = Date.now() - 1000;
  sl = await startReferentielijsten();
  t = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, logs);
  bron = await typen(t, sl, '000000000', 'BRON-1');
  const doel = await typen(t, sl, '111111111', 'DOEL-1');
  const reg = await t.call('POST', '/admin/api/v1/doelregistraties', {
    naam: 'gemeente-b',
    route: 'intern',
    rsin: '111111111',
    catalogus: doel.catalogus,
    zaaktypen: [{ bron: 'BRON-1', doel: 'DOEL-1' }],
    bron: 'openlaten',
  });
  expect(reg.statusCode).toBe(201);
  worker = startWorker(t, logs);
}, 120_000);
afterAll(async () => {
  await stopWorker(worker);
  await t?.close();
  await sl?.close();
});

const persoon = (inpBsn: string, inpA_nummer = '') => ({ inpBsn, inpA_nummer, anpIdentificatie: ANP, geslachtsnaam: MARKER });

/** The workload of the issue, each request checked. */
async function workload(): Promise<void> {
  const zaak = await createZ(t, 'zaken', {
    bronorganisatie: '000000000',
    verantwoordelijkeOrganisatie: '000000000',
    zaaktype: bron.zaaktype,
    startdatum: '2024-03-01',
    omschrijving: MARKER,
  });
  const rolBody = (inpBsn: string, inpA_nummer?: string) => ({
    zaak: zaak.url,
    roltype: bron.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: MARKER,
    betrokkeneIdentificatie: persoon(inpBsn, inpA_nummer),
  });
  const rol = await createZ(t, 'rollen', rolBody(BSNS[1]!, A_NUMMERS[0]));
  const weg = await createZ(t, 'rollen', rolBody(BSNS[2]!));
  expect((await t.call('DELETE', weg.url)).statusCode).toBe(204);
  const object = await createZ(t, 'zaakobjecten', {
    zaak: zaak.url,
    objectType: 'natuurlijk_persoon',
    relatieomschrijving: MARKER,
    objectIdentificatie: persoon(BSNS[3]!, A_NUMMERS[1]),
  });
  const recht = await createZ(t, 'zaakobjecten', {
    zaak: zaak.url,
    objectType: 'zakelijk_recht',
    objectIdentificatie: { identificatie: 'ZR-1', avgAard: 'eigendom', heeftAlsGerechtigde: { natuurlijkPersoon: persoon(BSNS[4]!) } },
  });
  // an update that changes the identifiers (the audit trail keeps the old and the new) and one that does not
  const objectBody = { zaak: zaak.url, objectType: 'natuurlijk_persoon', relatieomschrijving: MARKER, objectIdentificatie: persoon(BSNS[0]!) };
  expect((await t.call('PUT', object.url, objectBody)).statusCode).toBe(200);
  expect((await t.call('PATCH', object.url, { relatieomschrijving: `${MARKER}-2` })).statusCode).toBe(200);
  expect((await t.call('DELETE', recht.url)).statusCode).toBe(204);

  // reads: the audit trail, the rol, searches by BSN and A-nummer (body and query string)
  const trail = await t.call('GET', `${zaak.url}/audittrail`);
  expect(JSON.stringify(trail.json())).toContain(BSNS[1]); // shown to the auditor in the clear
  expect((await t.call('GET', rol.url)).json().betrokkeneIdentificatie.inpBsn).toBe(BSNS[1]);
  const zoek = await t.call('POST', `${ZRC}/zaken/_zoek`, { [FILTER]: BSNS[1], expand: 'rollen' }, { headers: CRS });
  expect(zoek.json().results.map((z: { url: string }) => z.url)).toEqual([zaak.url]);
  expect((await t.call('GET', `${ZRC}/zaken?${FILTER}=${BSNS[1]}`, undefined, { headers: CRS })).json().count).toBe(1);
  const byA = await t.call('GET', `${ZRC}/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpA_nummer=${A_NUMMERS[0]}`);
  expect(byA.json().count).toBe(1);

  // a transfer of the zaak with its rol
  const o = (await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'gemeente-b' })).json();
  let last: Record<string, any> = {};
  const done = await eventually(async () => afgelopen((last = (await t.call('GET', o.url)).json())), 90_000);
  expect({ done, status: last.status }).toEqual({ done: true, status: 'afgerond' });
  const copy = (await t.call('GET', `${ZRC}/rollen?zaak=${encodeURIComponent(last.doelZaak)}`)).json().results;
  expect(copy.map((r: { betrokkeneIdentificatie: { inpBsn: string } }) => r.betrokkeneIdentificatie.inpBsn)).toEqual([BSNS[1]]);
}

/** Every file under `dir` (recursively) changed since `since` (ms), or every file when `since` is 0. */
async function filesUnder(dir: string, since: number): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(path, since)));
    else if (e.isFile()) {
      const s = await stat(path).catch(() => undefined);
      if (s && s.mtimeMs >= since) out.push(path);
    }
  }
  return out;
}

/** For each file: which of `needles` it holds (a file removed meanwhile holds nothing). */
async function scan(files: string[], needles: string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const file of files) {
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes) continue;
    const hits = needles.filter((n) => bytes.includes(n));
    if (hits.length) found.set(file, hits);
  }
  return found;
}

/** Every message (key, headers and value) of every topic of this instance, from its beginning to its end now. */
async function messages(prefix: string): Promise<string[]> {
  const kafka = createKafka(t.config.KAFKA_BROKERS, `pii-scan-${randomUUID()}`);
  const admin = kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((n) => n.startsWith(prefix));
  const ends = new Map<string, number>();
  for (const topic of topics) for (const p of await admin.fetchTopicOffsets(topic)) ends.set(`${topic}/${p.partition}`, Number(p.high));
  await admin.disconnect();
  const out: string[] = [];
  const left = new Set([...ends].filter(([, high]) => high > 0).map(([k]) => k));
  if (!left.size) return out;
  const consumer = kafka.consumer({ groupId: `pii-scan-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  const all = new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        const headers = Object.entries(message.headers ?? {}).map(([k, v]) => `${k}=${String(v)}`);
        out.push([message.key?.toString() ?? '', ...headers, message.value?.toString() ?? ''].join('\n'));
        const key = `${topic}/${partition}`;
        if (Number(message.offset) + 1 >= (ends.get(key) ?? 0)) left.delete(key);
        if (!left.size) resolve();
      },
    });
  });
  await Promise.race([all, new Promise((r) => setTimeout(r, 60_000))]);
  await consumer.disconnect();
  expect([...left]).toEqual([]); // every topic read to its end
  return out;
}

test('no BSN, A-nummer or anpIdentificatie in the clear on disk or on a topic; a marker of the same requests is found', async () => {
  await workload();
  // what the reads and writes publish has reached Kafka (the audit trail's entries carry the marker)
  const topics = await messages(t.topicPrefix);
  expect(topics.some((m) => m.includes(MARKER))).toBe(true);
  const onTopics = topics.filter((m) => SECRETS.some((s) => m.includes(s)));
  expect(onTopics).toEqual([]);
  // the read trail: its spool (what waits to be sent) and the entries on audit-reads (above) mask every identifier
  const spool = await scan(await filesUnder(t.config.AUDIT_SPOOL_DIR, 0), SECRETS);
  expect([...spool]).toEqual([]);
  // the logs of the API and the transfer worker
  expect(logs.lines.map((l) => JSON.stringify(l)).filter((l) => SECRETS.some((s) => l.includes(s)))).toEqual([]);

  if (!OWN_ENGINES) {
    console.warn('pii-at-rest: engines not started by npm test (MONGODB_URL/KAFKA_BROKERS given): their files are not scanned');
    return;
  }
  const files = await filesUnder(DATA_DIR, startedAt);
  const found = await scan(files, [...SECRETS, MARKER]);
  const withSecret = [...found].filter(([, hits]) => hits.some((h) => h !== MARKER));
  expect(withSecret).toEqual([]);
  const withMarker = [...found].filter(([, hits]) => hits.includes(MARKER)).map(([f]) => f);
  expect(withMarker.some((f) => f.startsWith(join(DATA_DIR, 'mongo')))).toBe(true);
  expect(withMarker.some((f) => f.startsWith(join(DATA_DIR, 'kafka')))).toBe(true);
  // and the scan covered each engine's files: the store's, Kafka's, Temporal's database and the engines' logs
  for (const engine of ['mongo', 'kafka', 'temporal']) expect(files.some((f) => f.startsWith(join(DATA_DIR, engine)))).toBe(true);
}, 300_000);
