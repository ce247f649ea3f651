/**
 * Document content on S3 (INHOUD_STORE=s3), against the platform's own S3 engine (SeaweedFS, scripts/engines.sh; or the
 * S3 that S3_ENDPOINT names): objects under the database's prefix, bestandsdelen, the sweep of content no document
 * points to, moving content between GridFS and S3 with the admin command, and S3 out of reach.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GridfsInhoud } from '../src/components/documenten/inhoud-gridfs';
import { S3Inhoud } from '../src/components/documenten/inhoud-s3';
import { sweepInhoud } from '../src/components/documenten/inhoud-sweep';
import { EIO, eioBody, informatieobjecttype, putBestandsdeel } from './documenten.fixtures';
import { startApp, type TestApp } from './harness';

const ROOT = join(__dirname, '..', '..', '..');
const PART = 4096;
let s3env: Record<string, string>;
let t: TestApp;
let iot: string;
let s3: S3Client;

beforeAll(async () => {
  if (process.env.S3_ENDPOINT) {
    s3env = {};
  } else {
    // the platform's own S3 engine, as npm start and npm test use it
    execFileSync('bash', [join(ROOT, 'scripts', 'engines.sh'), 'start', 's3'], { stdio: 'inherit' });
    const env = execFileSync('bash', [join(ROOT, 'scripts', 'engines.sh'), 'env', 's3'], { encoding: 'utf8' });
    s3env = Object.fromEntries([...env.matchAll(/export (\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    // the AWS SDK takes its credentials from the environment (its standard chain), as the API does
    for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) process.env[k] = s3env[k];
  }
  t = await startApp({ ...s3env, INHOUD_STORE: 's3', DRC_BESTANDSDEEL_BYTES: String(PART) });
  iot = await informatieobjecttype(t);
  s3 = new S3Inhoud(t.config, t.deps.log).client;
}, 300_000);
afterAll(async () => t.close());

const prefix = () => `${t.config.MONGODB_DB}/`;
async function objects(): Promise<{ key: string; size: number }[]> {
  const out: { key: string; size: number }[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: t.config.S3_BUCKET, Prefix: prefix(), ContinuationToken: token }));
    for (const o of page.Contents ?? []) out.push({ key: o.Key!.slice(prefix().length), size: o.Size ?? 0 });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const s3Store = () => new S3Inhoud(t.deps.config, t.deps.log);

it('keeps each document file as one object under the database prefix, nothing in GridFS, and streams it back', async () => {
  const before = await objects();
  const content = randomBytes(700 * 1024 + 13); // below one part: a single PUT
  const big = randomBytes(11 * 1024 * 1024 + 7); // a multipart upload of three parts
  const a = (await t.call('POST', EIO, eioBody(iot, { inhoud: content.toString('base64'), bestandsomvang: content.length }))).json();
  const b = (await t.call('POST', EIO, eioBody(iot, { inhoud: big.toString('base64'), bestandsomvang: big.length }))).json();
  const after = await objects();
  expect(after.length).toBe(before.length + 2);
  expect(after.map((o) => o.size).sort((x, y) => x - y)).toEqual(expect.arrayContaining([content.length, big.length]));
  expect(await t.mongo.db.collection('inhoud.files').countDocuments({})).toBe(0);
  expect(sha((await t.call('GET', `${a.url}/download`)).rawPayload)).toBe(sha(content));
  const got = await t.call('GET', `${b.url}/download`);
  expect(got.headers['content-length']).toBe(String(big.length));
  expect(sha(got.rawPayload)).toBe(sha(big));
});

it('takes bestandsdelen smaller than S3 minimum part size, and a lock given up before all parts leaves no object', async () => {
  const before = (await objects()).length;
  const content = randomBytes(2 * PART + 100);
  const eio = (await t.call('POST', EIO, eioBody(iot, { inhoud: null, bestandsomvang: content.length }))).json();
  const put = (url: string, bytes: Buffer, lock: string) => putBestandsdeel(t, url, { lock }, bytes);
  const [d1, d2, d3] = eio.bestandsdelen as { url: string }[];
  expect((await put(d1!.url, content.subarray(0, PART), eio.lock)).statusCode).toBe(200);
  expect((await put(d3!.url, content.subarray(2 * PART), eio.lock)).statusCode).toBe(200);
  expect((await objects()).length).toBe(before + 2);
  expect((await put(d2!.url, content.subarray(PART, 2 * PART), eio.lock)).statusCode).toBe(200);
  expect((await t.call('POST', `${eio.url}/unlock`, { lock: eio.lock })).statusCode).toBe(204);
  expect(sha((await t.call('GET', `${eio.url}/download`)).rawPayload)).toBe(sha(content));

  // A second upload, given up (forced unlock) with one of its two parts in: that part's object goes.
  const second = (await t.call('POST', EIO, eioBody(iot, { inhoud: null, bestandsomvang: PART + 1 }))).json();
  expect((await put(second.bestandsdelen[0].url, randomBytes(PART), second.lock)).statusCode).toBe(200);
  expect((await objects()).length).toBe(before + 4);
  expect((await t.call('POST', `${second.url}/unlock`, {})).statusCode).toBe(204);
  expect((await objects()).length).toBe(before + 3);
  // Deleting the first document removes its three parts.
  expect((await t.call('DELETE', eio.url)).statusCode).toBe(204);
  expect((await objects()).length).toBe(before);
});

it('the sweep removes content no document points to after the grace period, on S3 and on GridFS, and keeps the rest', async () => {
  const content = randomBytes(1000);
  const kept = (await t.call('POST', EIO, eioBody(iot, { inhoud: content.toString('base64'), bestandsomvang: 1000 }))).json();
  // as a crash between the object and its document leaves it
  const orphan = `${prefix()}00000000-0000-4000-8000-00000000dead`;
  await s3.send(new PutObjectCommand({ Bucket: t.config.S3_BUCKET, Key: orphan, Body: Buffer.from('left behind') }));
  const store = s3Store();
  expect(await sweepInhoud(t.mongo.db, store, 3_600_000, t.deps.log)).toEqual({ checked: 0, removed: 0 }); // too young
  const swept = await sweepInhoud(t.mongo.db, store, 0, t.deps.log);
  expect(swept.removed).toBe(1);
  expect(swept.checked).toBe((await objects()).length + 1);
  expect((await objects()).map((o) => o.key)).not.toContain('00000000-0000-4000-8000-00000000dead');
  expect(sha((await t.call('GET', `${kept.url}/download`)).rawPayload)).toBe(sha(content));

  const gridfs = new GridfsInhoud(t.mongo.db, t.deps.log);
  await gridfs.prepare();
  const stray = await gridfs.fromStream([Buffer.from('a GridFS file of no document')]);
  // A grace of 0 sweeps what was stored before now: past the file's upload millisecond first.
  await new Promise((r) => setTimeout(r, 5));
  expect((await sweepInhoud(t.mongo.db, gridfs, 0, t.deps.log)).removed).toBe(1);
  expect(await gridfs.size(stray.id)).toBeUndefined();
});

it('npm run admin -- inhoud-migreren moves every file to S3 and back, checked, resumable, and the documents read the same', async () => {
  const g = await startApp({ ...s3env, INHOUD_STORE: 'gridfs' });
  try {
    const gIot = await informatieobjecttype(g);
    const contents = [randomBytes(10), randomBytes(300 * 1024), randomBytes(6 * 1024 * 1024)];
    const urls: string[] = [];
    for (const c of contents)
      urls.push((await g.call('POST', EIO, eioBody(gIot, { inhoud: c.toString('base64'), bestandsomvang: c.length }))).json().url);
    const gridfsFiles = () => g.mongo.db.collection('inhoud.files').countDocuments({});
    expect(await gridfsFiles()).toBe(3);
    const onS3 = new S3Inhoud(g.config, g.deps.log);
    // a copy a run cut short left in S3 (wrong bytes under the first file's id): replaced, not trusted
    const first = (await g.mongo.db.collection('inhoud.files').find().sort({ uploadDate: 1 }).limit(1).next())!._id as unknown as string;
    await onS3.fromStream([Buffer.from('half a copy')], first);

    const cli = (to: string) =>
      promisify(execFile)(process.execPath, [join(__dirname, '..', 'dist', 'cli', 'admin.js'), 'inhoud-migreren', to], {
        env: { ...process.env, ...s3env, MONGODB_URL: g.config.MONGODB_URL, MONGODB_DB: g.config.MONGODB_DB, LOG_LEVEL: 'silent' },
      });
    const last = (out: string) =>
      JSON.parse(
        out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .pop()!,
      ) as Record<string, unknown>;
    const toS3 = await cli('s3');
    expect(last(toS3.stdout)).toMatchObject({ moved: 3, failed: 0, bytes: contents.reduce((n, c) => n + c.length, 0), from: 'gridfs', to: 's3' });
    expect(await gridfsFiles()).toBe(0);
    // the same documents, read by an API on S3
    const s = await startApp({ ...s3env, INHOUD_STORE: 's3' }, { shareWith: g });
    try {
      for (const [i, url] of urls.entries()) expect(sha((await s.call('GET', `${url}/download`)).rawPayload)).toBe(sha(contents[i]!));
    } finally {
      await s.close();
    }
    expect(last((await cli('s3')).stdout)).toMatchObject({ moved: 0, failed: 0 }); // nothing left to move
    expect(last((await cli('gridfs')).stdout)).toMatchObject({ moved: 3, failed: 0, from: 's3', to: 'gridfs' });
    expect(await gridfsFiles()).toBe(3);
    for (const [i, url] of urls.entries()) expect(sha((await g.call('GET', `${url}/download`)).rawPayload)).toBe(sha(contents[i]!));
    let left = 0;
    for await (const _f of onS3.list(new Date(Date.now() + 60_000))) left++;
    expect(left).toBe(0);
  } finally {
    await g.close();
  }
});

it('S3 out of reach: the API starts, document content answers 503 in the ZGW problem format, and no document is made', async () => {
  const down = await startApp({
    INHOUD_STORE: 's3',
    S3_ENDPOINT: 'http://127.0.0.1:1',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'y',
  });
  try {
    const downIot = await informatieobjecttype(down);
    const res = await down.call('POST', EIO, eioBody(downIot, { inhoud: Buffer.from('inhoud').toString('base64'), bestandsomvang: 6 }));
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 503, code: 'inhoud-unavailable' });
    expect(res.json().detail).toContain('S3');
    expect((await down.call('GET', EIO)).json().count).toBe(0);
  } finally {
    await down.close();
  }
});
