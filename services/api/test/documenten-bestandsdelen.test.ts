import { randomBytes } from 'node:crypto';
import { EIO, eioBody, informatieobjecttype, putBestandsdeel, storedFiles } from './documenten.fixtures';
import { startApp, token, type TestApp } from './harness';

// Large documents: created with bestandsomvang and no inhoud, uploaded in bestandsdelen (multipart, streamed), and
// complete when the last part is in and the document is unlocked.
let t: TestApp;
let iot: string;
const PART = 4096;

beforeAll(async () => {
  t = await startApp({ DRC_BESTANDSDEEL_BYTES: String(PART) });
  iot = await informatieobjecttype(t);
});
afterAll(async () => {
  await t.close();
});

const putDeel = (url: string, fields: Record<string, string>, file?: Buffer) => putBestandsdeel(t, url, fields, file);

const code = (res: { json(): any }) => (res.json().invalidParams as { name: string; code: string }[])[0];

it('creates a locked document with bestandsdelen, takes each part once its lock and size are right, and joins them on unlock', async () => {
  const content = randomBytes(2 * PART + 1808);
  const res = await t.call('POST', EIO, eioBody(iot, { inhoud: null, bestandsomvang: content.length }));
  expect(res.statusCode).toBe(201);
  const eio = res.json();
  expect(eio).toMatchObject({ locked: true, inhoud: null, bestandsomvang: content.length });
  expect(eio.lock).toMatch(/^[0-9a-f]{32}$/);
  expect(
    eio.bestandsdelen.map((p: { volgnummer: number; omvang: number; voltooid: boolean; lock: string }) => [
      p.volgnummer,
      p.omvang,
      p.voltooid,
      p.lock,
    ]),
  ).toEqual([
    [1, PART, false, eio.lock],
    [2, PART, false, eio.lock],
    [3, 1808, false, eio.lock],
  ]);
  const [d1, d2, d3] = eio.bestandsdelen as { url: string }[];

  expect(code(await t.call('POST', `${eio.url}/unlock`, { lock: eio.lock }))).toMatchObject({ code: 'incomplete-upload' });
  expect(code(await putDeel(d1!.url, { lock: 'fout' }, content.subarray(0, PART)))).toMatchObject({ code: 'incorrect-lock-id' });
  expect(code(await putDeel(d1!.url, { lock: eio.lock }, content.subarray(0, PART - 1)))).toMatchObject({ name: 'inhoud', code: 'file-size' });
  expect(code(await putDeel(d1!.url, { lock: eio.lock }, content.subarray(0, PART + 1)))).toMatchObject({ name: 'inhoud', code: 'file-size' });
  expect(code(await putDeel(d1!.url, { lock: eio.lock }))).toMatchObject({ name: 'inhoud', code: 'required' });
  expect(code(await putDeel(d1!.url, {}, content.subarray(0, PART)))).toMatchObject({ name: 'lock', code: 'required' });
  expect(
    (await putDeel(d1!.url.replace(/[0-9a-f-]{36}$/, '00000000-0000-4000-8000-000000000000'), { lock: eio.lock }, content.subarray(0, PART)))
      .statusCode,
  ).toBe(404);

  // Parts in any order.
  const r3 = await putDeel(d3!.url, { lock: eio.lock }, content.subarray(2 * PART));
  expect(r3.statusCode).toBe(200);
  expect(r3.json()).toMatchObject({ url: d3!.url, volgnummer: 3, omvang: 1808, voltooid: true });
  expect((await putDeel(d1!.url, { lock: eio.lock }, content.subarray(0, PART))).statusCode).toBe(200);
  expect((await t.call('GET', eio.url)).json().bestandsdelen.map((p: { voltooid: boolean }) => p.voltooid)).toEqual([true, false, true]);
  expect((await t.call('GET', `${eio.url}/download`)).statusCode).toBe(404);
  expect((await putDeel(d2!.url, { lock: eio.lock }, content.subarray(PART, 2 * PART))).statusCode).toBe(200);

  expect((await t.call('POST', `${eio.url}/unlock`, { lock: eio.lock })).statusCode).toBe(204);
  const done = (await t.call('GET', eio.url)).json();
  expect(done).toMatchObject({ locked: false, bestandsdelen: [], bestandsomvang: content.length, inhoud: `${eio.url}/download?versie=1` });
  const got = await t.call('GET', `${eio.url}/download`);
  expect(got.headers['content-length']).toBe(String(content.length));
  expect(got.rawPayload.equals(content)).toBe(true);
  expect(await t.mongo.db.collection('bestandsdelen').countDocuments({})).toBe(0);

  // A new version in bestandsdelen; the old one keeps its content.
  const l = (await t.call('POST', `${eio.url}/lock`)).json().lock;
  const v2 = await t.call('PATCH', eio.url, { inhoud: null, bestandsomvang: 10, lock: l });
  expect(v2.json()).toMatchObject({ versie: 2, bestandsomvang: 10, inhoud: null });
  const [p] = v2.json().bestandsdelen as { url: string; omvang: number }[];
  expect(p!.omvang).toBe(10);
  expect((await putDeel(p!.url, { lock: l }, Buffer.from('0123456789'))).statusCode).toBe(200);
  expect((await t.call('POST', `${eio.url}/unlock`, { lock: l })).statusCode).toBe(204);
  expect((await t.call('GET', `${eio.url}/download`)).rawPayload.toString()).toBe('0123456789');
  expect((await t.call('GET', `${eio.url}/download?versie=1`)).rawPayload.equals(content)).toBe(true);

  // Deleting the document removes every file of it.
  expect((await t.call('DELETE', eio.url)).statusCode).toBe(204);
  expect(await storedFiles(t)).toBe(0);
});

it('drops incomplete parts on a forced unlock without the lock', async () => {
  const eio = (await t.call('POST', EIO, eioBody(iot, { inhoud: '', bestandsomvang: PART + 1 }))).json();
  expect((await putDeel(eio.bestandsdelen[0].url, { lock: eio.lock }, randomBytes(PART))).statusCode).toBe(200);
  expect((await t.call('POST', `${eio.url}/unlock`)).statusCode).toBe(204);
  expect((await t.call('GET', eio.url)).json()).toMatchObject({ bestandsdelen: [], inhoud: null, locked: false });
  expect(await t.mongo.db.collection('bestandsdelen').countDocuments({ _eio: eio.url.split('/').pop() })).toBe(0);
});

it('takes a bestandsdeel in the url-encoded form the file declares too, byte for byte', async () => {
  const content = Buffer.from([0, 1, 2, 0x25, 0x26, 0x3d, 0x2b, 0x80, 0xfe, 0xff, ...Buffer.from(' één')]);
  const eio = (await t.call('POST', EIO, eioBody(iot, { inhoud: null, bestandsomvang: content.length }))).json();
  const [deel] = eio.bestandsdelen as { url: string }[];
  const form = (fields: Record<string, string | Buffer>) =>
    Object.entries(fields)
      .map(([k, v]) => `${k}=${[...Buffer.from(v)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`)
      .join('&');
  const put = (payload: string) =>
    t.app.inject({
      method: 'PUT',
      url: deel!.url.replace('http://127.0.0.1:8000', ''),
      payload,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token()}` },
    });
  expect(code(await put(form({ lock: eio.lock, inhoud: content.subarray(1) })))).toMatchObject({ name: 'inhoud', code: 'file-size' });
  expect(code(await put(form({ lock: 'fout', inhoud: content })))).toMatchObject({ code: 'incorrect-lock-id' });
  const res = await put(form({ lock: eio.lock, inhoud: content }));
  expect(res.statusCode).toBe(200);
  expect((await t.call('POST', `${eio.url}/unlock`, { lock: eio.lock })).statusCode).toBe(204);
  expect((await t.call('GET', `${eio.url}/download`)).rawPayload.equals(content)).toBe(true);
});
