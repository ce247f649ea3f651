import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { MongoClient } from 'mongodb';
import { loadConfig } from '@zgw/shared';

// A large document through a real API process: uploaded in bestandsdelen and downloaded again, its content streamed
// both ways, so the process's resident memory grows by far less than the document's size.

const SIZE = 256 * 1024 * 1024;
const DEEL = 64 * 1024 * 1024;
/**
 * The most the API's RSS may grow over its RSS before the upload: half the content (a whole copy would be SIZE). What
 * it holds is a few MB at a time; the rest of the growth is spent buffers waiting for a collection, which Node.js 24's
 * V8 lets reach about 100 MB on a busy machine (Node.js 20: about 50).
 */
const BOUND = 128 * 1024 * 1024;
const MB = 1024 * 1024;

const secret = 'large-secret';
const auth = `Bearer ${createSigner({ key: secret })({ client_id: 'large', user_id: 'tester', user_representation: 'Tester' })}`;
const config = loadConfig();
const db = `zgw_test_large_${randomUUID().slice(0, 8)}`;
const spool = join(tmpdir(), `zgw-test-spool-${db}`);
let api: ChildProcess;
let base: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** The largest RSS of the API while `fn` runs (sampled every 20 ms). */
async function maxRssDuring<T>(fn: () => Promise<T>): Promise<{ result: T; max: number }> {
  let max = rss(api.pid!);
  const timer = setInterval(() => (max = Math.max(max, rss(api.pid!))), 20);
  try {
    const result = await fn();
    return { result, max: Math.max(max, rss(api.pid!)) };
  } finally {
    clearInterval(timer);
  }
}

function request(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, headers: { authorization: auth, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** PUT of a bestandsdeel as multipart/form-data, `size` random bytes written 1 MiB at a time into `hash`. */
function putDeel(url: string, lock: string, size: number, hash: ReturnType<typeof createHash>): Promise<number> {
  const boundary = `large${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="lock"\r\n\r\n${lock}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="inhoud"; filename="deel"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'PUT',
        headers: {
          authorization: auth,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + size + tail.length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    void (async () => {
      const write = (b: Buffer) => (req.write(b) ? undefined : new Promise((r) => req.once('drain', r)));
      await write(head);
      for (let sent = 0; sent < size; sent += MB) {
        const piece = randomBytes(Math.min(MB, size - sent));
        hash.update(piece);
        await write(piece);
      }
      req.end(tail);
    })().catch((err: Error) => req.destroy(err));
  });
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // A young generation of 3 x 8 MB: the RSS then shows what the API holds, not the garbage a larger young generation
  // lets pile up before it is collected (Node.js 24 sizes it by the machine's memory, up to about 100 MB here).
  api = spawn(process.execPath, ['--max-semi-space-size=8', 'services/api/dist/main.js'], {
    cwd: join(__dirname, '../../..'),
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      MONGODB_DB: db,
      KAFKA_TOPIC_PREFIX: `test-${db}-`,
      LOG_LEVEL: 'error',
      ZGW_CLIENTS: `large:${secret}:all`,
      AUDIT_SPOOL_DIR: spool,
      DRC_BESTANDSDEEL_BYTES: String(DEEL),
    },
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (i > 120 || api.exitCode !== null) throw new Error('the API did not come up');
    await new Promise((r) => setTimeout(r, 250));
  }
});

afterAll(async () => {
  if (api && api.exitCode === null) {
    await new Promise((resolve) => {
      api.once('exit', resolve);
      api.kill('SIGTERM');
    });
  }
  const mongo = await MongoClient.connect(config.MONGODB_URL);
  await mongo
    .db(db)
    .dropDatabase()
    .catch(() => undefined);
  await mongo.close();
  rmSync(spool, { recursive: true, force: true });
});

it(`uploads ${SIZE / MB} MiB in bestandsdelen and downloads it with the API's RSS growing less than ${BOUND / MB} MB`, async () => {
  const ztc = `${base}/catalogi/api/v1`;
  const cat = await request('POST', `${ztc}/catalogussen`, { domein: 'LARGE', rsin: '002220647', contactpersoonBeheerNaam: 'Test' });
  const iot = await request('POST', `${ztc}/informatieobjecttypen`, {
    catalogus: cat.json.url,
    omschrijving: 'groot',
    vertrouwelijkheidaanduiding: 'openbaar',
    beginGeldigheid: '2020-01-01',
    informatieobjectcategorie: 'test',
  });
  expect((await request('POST', `${iot.json.url}/publish`)).status).toBe(200);
  const body = (i: number, extra: Record<string, unknown>) => ({
    bronorganisatie: '002220647',
    creatiedatum: '2024-03-01',
    titel: `groot ${i}`,
    auteur: 'Test',
    taal: 'dut',
    informatieobjecttype: iot.json.url,
    ...extra,
  });
  // A few small documents first, so the process has loaded and compiled what a write uses before the baseline.
  for (let i = 0; i < 10; i++)
    expect((await request('POST', `${base}/documenten/api/v1/enkelvoudiginformatieobjecten`, body(i, { inhoud: 'a2xlaW4=' }))).status).toBe(201);
  const created = await request('POST', `${base}/documenten/api/v1/enkelvoudiginformatieobjecten`, body(99, { inhoud: null, bestandsomvang: SIZE }));
  expect(created.status).toBe(201);
  const eio = created.json;
  expect(eio.bestandsdelen).toHaveLength(SIZE / DEEL);
  const baseline = rss(api.pid!);

  const sent = createHash('sha256');
  const upload = await maxRssDuring(async () => {
    for (const deel of eio.bestandsdelen as { url: string; omvang: number }[]) expect(await putDeel(deel.url, eio.lock, deel.omvang, sent)).toBe(200);
    return (await request('POST', `${eio.url}/unlock`, { lock: eio.lock })).status;
  });
  expect(upload.result).toBe(204);

  const download = await maxRssDuring(
    () =>
      new Promise<{ status: number; size: number; digest: string }>((resolve, reject) => {
        const got = createHash('sha256');
        let size = 0;
        http
          .get(`${eio.url}/download`, { headers: { authorization: auth } }, (res) => {
            res.on('data', (c: Buffer) => {
              size += c.length;
              got.update(c);
            });
            res.on('end', () => resolve({ status: res.statusCode!, size, digest: got.digest('hex') }));
            res.on('error', reject);
          })
          .on('error', reject);
      }),
  );
  expect(download.result).toEqual({ status: 200, size: SIZE, digest: sent.digest('hex') });
  console.log(
    `API RSS ${(baseline / MB).toFixed(0)} MB before; upload max +${((upload.max - baseline) / MB).toFixed(1)} MB, download max +${((download.max - baseline) / MB).toFixed(1)} MB`,
  );
  expect(upload.max - baseline).toBeLessThan(BOUND);
  expect(download.max - baseline).toBeLessThan(BOUND);
}, 120_000);
