import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { loadConfig, type Config } from '@zgw/shared';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { EIO, eioBody } from './documenten.fixtures';
import { eventually, token, type TestApp } from './harness';
import { freePort, LogLines, Netwerk, startListeningApp, startWorker, stopWorker, TRANSFER_SECRET, typen } from './overdrachten.fixtures';
import { CRS, ZRC, createZ, zaakBody } from './zaken.fixtures';

/**
 * The registration import survives its processes: the worker killed (SIGKILL) while it streams documents, and the API
 * it writes through killed while it stores a batch. The run ends complete (every object of the source here, equal to
 * the source, the counts and every document's content verified) and without anything twice.
 */
const ROOT = join(__dirname, '..', '..', '..');
const ZAKEN = 150;
const logs = new LogLines();
let sl: Referentielijsten;
let bron: TestApp;
let net: Netwerk;
let config: Config;
let env: Record<string, string>;
let api: ChildProcess | undefined;
let worker: ChildProcess | undefined;
let spool: string;

/** The API of this platform as its own process (so it can be killed), on the same port and database each time. */
async function startApi(): Promise<void> {
  const child = spawn(process.execPath, ['services/api/dist/main.js'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => logs.add(String(d)));
  child.stderr!.on('data', (d) => logs.add(String(d)));
  api = child;
  const up = await eventually(async () => {
    if (child.exitCode !== null) throw new Error('the API stopped while starting');
    return (await fetch(`${config.PUBLIC_BASE_URL}/health`).catch(() => undefined))?.ok === true;
  }, 60_000);
  expect(up).toBe(true);
}

const beheer = { authorization: `Bearer ${token('beheer', 'beheer-geheim')}`, 'content-type': 'application/json', ...CRS };
const hier = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${config.PUBLIC_BASE_URL}${path}`, { ...init, headers: beheer });
  expect([path, res.status]).toEqual([path, init.method === 'POST' ? 201 : 200]);
  return (await res.json()) as any;
};
/** Every object of a list, page by page. */
async function alle(get: (path: string) => Promise<any>, path: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const body = await get(`${path}${path.includes('?') ? '&' : '?'}page=${page}`);
    out.push(...body.results);
    if (!body.next) return out;
  }
}
const bronGet = async (path: string) => (await bron.call('GET', path, undefined, { headers: CRS })).json();
const ours = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll(bron.config.PUBLIC_BASE_URL, config.PUBLIC_BASE_URL));
const byUrl = (list: any[]) => [...list].sort((a, b) => (a.url < b.url ? -1 : 1));

beforeAll(async () => {
  sl = await startReferentielijsten();
  bron = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, new LogLines());
  const s = await typen(bron, sl, '000000000', 'ZT-ROBUUST');
  await bron.client('verhuizer', 'verhuizer-secret');
  await ensureAllRights(bron.mongo.db, 'verhuizer', bron.config.ZGW_DEFAULT_TENANT);
  for (let i = 0; i < ZAKEN; i++) {
    const zaak = await createZ(bron, 'zaken', zaakBody(s.zaaktype, { omschrijving: `zaak ${i}`, startdatum: '2020-05-01' }));
    await createZ(bron, 'rollen', {
      zaak: zaak.url,
      roltype: s.roltype,
      betrokkeneType: 'natuurlijk_persoon',
      roltoelichting: 'aanvrager',
      betrokkeneIdentificatie: { geslachtsnaam: `Persoon ${i}` },
    });
    const doc = await bron.call('POST', EIO, eioBody(s.iot, { inhoud: Buffer.alloc(2000, `${i}`).toString('base64') }));
    await createZ(bron, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: doc.json().url });
  }
  // the source answers slowly enough for the kills to land mid-run
  net = new Netwerk(bron);
  net.vertraging = { match: (req) => /\/download|\/audittrail/.test(String(req.url)), ms: 40 };

  const port = await freePort();
  const db = `import-robuust-${Date.now()}`;
  spool = mkdtempSync(join(tmpdir(), 'import-robuust-'));
  env = {
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    MONGODB_DB: db,
    KAFKA_TOPIC_PREFIX: `test-${db}-`,
    TRANSFER_SECRET,
    TRANSFER_TASK_QUEUE: `test-${db}`,
    TRANSFER_HEARTBEAT_SECONDS: '3',
    ZGW_CLIENTS: 'beheer:beheer-geheim:all',
    REFERENTIELIJSTEN_URL: sl.url,
    AUDIT_SPOOL_DIR: spool,
    LOG_LEVEL: 'info',
  };
  config = loadConfig({ ...process.env, ...env });
  await startApi();
  worker = startWorker({ config }, logs);
}, 180_000);

afterAll(async () => {
  await stopWorker(worker, 'SIGKILL');
  await stopWorker(api);
  await bron?.close();
  await sl?.close();
  const mongo = await MongoClient.connect(config.MONGODB_URL);
  await mongo
    .db(config.MONGODB_DB)
    .dropDatabase()
    .catch(() => undefined);
  await mongo.close();
  rmSync(spool, { recursive: true, force: true });
});

test('the worker and the API killed mid-import: the run ends complete, equal to the source, nothing twice', async () => {
  const run = await hier('/admin/api/v1/importen', {
    method: 'POST',
    body: JSON.stringify({ bron: bron.config.PUBLIC_BASE_URL, clientId: 'verhuizer', secret: 'verhuizer-secret' }),
  });
  const served = (path: string) => net.verzoeken.filter((r) => r.includes(path)).length;
  const wacht = async (what: () => boolean, ms: number) => {
    const ok = await eventually(async () => what(), ms);
    if (!ok) console.log(JSON.stringify(logs.lines.filter((l) => Number(l.level) >= 40).slice(-10), null, 1), net.verzoeken.slice(-5));
    expect(ok).toBe(true);
  };

  // the worker killed while it streams the second page of documents' content
  await wacht(() => served('/download') > 110, 60_000);
  await stopWorker(worker, 'SIGKILL');
  worker = startWorker({ config }, logs);

  // the API killed while it stores the rollen (the worker read their page a moment ago)
  await wacht(() => served('/zaken/api/v1/rollen') > 0, 90_000);
  await new Promise((r) => setTimeout(r, 150));
  await stopWorker(api, 'SIGKILL');
  await startApi();

  let view: any;
  const klaar = await eventually(async () => {
    view = await hier(`/admin/api/v1/importen/${run.id}`);
    return !['bezig', 'gepauzeerd'].includes(view.status);
  }, 120_000);
  expect(klaar).toBe(true);
  expect([view.status, view.fout, view.fouten]).toEqual(['afgerond', undefined, []]);
  for (const [k, v] of Object.entries(view.verificatie as Record<string, { bron: number; hier: number }>)) expect([k, v.hier]).toEqual([k, v.bron]);
  expect(view.inhoudVerificatie).toEqual({ versies: ZAKEN, aantalAfwijkend: 0, afwijkend: [] });

  // every object here as the source shows it (a zaak's rollen and documents included), each once
  for (const path of [`${ZRC}/zaken`, `${ZRC}/rollen`, EIO]) {
    const [daar, hierLijst] = [await alle(bronGet, path), await alle(hier, path)];
    expect(hierLijst).toHaveLength(ZAKEN);
    expect(byUrl(hierLijst)).toEqual(ours(byUrl(daar)));
  }
  const zios = (await hier(`${ZRC}/zaakinformatieobjecten`)) as any[];
  expect(zios).toHaveLength(ZAKEN);
  expect(byUrl(zios)).toEqual(ours(byUrl(await bronGet(`${ZRC}/zaakinformatieobjecten`))));
  // the links the platform keeps followed each imported link once
  const oios = (await hier('/documenten/api/v1/objectinformatieobjecten')) as any[];
  expect(oios).toHaveLength(ZAKEN);
  expect(new Set(oios.map((o) => o.informatieobject)).size).toBe(ZAKEN);
}, 300_000);
