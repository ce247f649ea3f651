import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { catalogus, create, iotBody } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { DRC, EIO, createEio, drcClient, eioBody, informatieobjecttype, lock, storedFiles } from './documenten.fixtures';

let t: TestApp;
let iot: string;

beforeAll(async () => {
  t = await startApp();
  iot = await informatieobjecttype(t, { vertrouwelijkheidaanduiding: 'zaakvertrouwelijk' });
});
afterAll(async () => {
  await t.close();
});

/** Checks a ZGW problem answer; for a 400 returns the invalidParams entry named `name`. */
function expectProblem(res: LightMyRequestResponse, status: number, name?: string): { name: string; code: string } {
  expect({ status: res.statusCode, body: res.body }).toMatchObject({ status });
  expect(res.headers['content-type']).toContain('application/problem+json');
  if (!name) return { name: '', code: res.json().code };
  const param = (res.json().invalidParams as { name: string; code: string }[]).find((p) => p.name === name);
  expect({ param, body: res.body }).toMatchObject({ param: { name } });
  return param!;
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const download = (url: string, query = '', opts: { token?: string } = {}) => t.call('GET', `${url}/download${query}`, undefined, opts);
const files = () => storedFiles(t);

describe('concurrent downloads and audit trails', () => {
  it('read the files and trails together, each request its own bytes and entries', async () => {
    const contents = [1, 2, 3, 4].map((i) => randomBytes(1000 + i));
    const eios = await Promise.all(contents.map((c) => createEio(t, eioBody(iot, { inhoud: b64(c) }))));
    const finds: { coll: string; filter: Record<string, unknown> }[] = [];
    const watch = (e: { commandName: string; command: Record<string, any> }) => {
      if (e.commandName === 'find') finds.push({ coll: String(e.command.find), filter: e.command.filter ?? {} });
    };
    t.mongo.client.on('commandStarted', watch);
    try {
      const got = await Promise.all(eios.map((e) => download(e.url)));
      expect(got.map((g) => g.rawPayload.equals(contents[got.indexOf(g)]!))).toEqual([true, true, true, true]);
      const trails = await Promise.all(eios.map((e) => t.call('GET', `${e.url}/audittrail`)));
      for (const [i, trail] of trails.entries()) {
        expect(trail.statusCode).toBe(200);
        expect(trail.json().map((entry: { hoofdObject: string }) => entry.hoofdObject)).toEqual([eios[i]!.url]);
      }
    } finally {
      t.mongo.client.off('commandStarted', watch);
    }
    // (the first read of each kind goes alone, those that came meanwhile as one $in)
    const batched = (coll: string, field: string) =>
      finds.some((f) => f.coll === coll && (f.filter[field] as { $in?: unknown[] } | undefined)?.$in !== undefined);
    expect(batched('audittrail', 'hoofdObject')).toBe(true);
    // (the content in GridFS, the default; on S3 (INHOUD_STORE=s3) each download is a request of its own). The files'
    // entries are read as the requests come in, together; each small file's chunks in one read at most (they go
    // together only when the responses are written at the same moment: not asserted)
    if (t.config.INHOUD_STORE !== 'gridfs') return;
    expect(batched('inhoud.files', '_id')).toBe(true);
    expect(finds.filter((f) => f.coll === 'inhoud.chunks').length).toBeLessThanOrEqual(4);
  });
});

describe('enkelvoudiginformatieobjecten: create and download', () => {
  it('stores the base64 content and serves it back as a stream of bytes', async () => {
    const eio = await createEio(t, eioBody(iot, { inhoud: b64('hallo wereld'), bestandsnaam: 'brief.txt' }));
    expect(eio).toMatchObject({
      versie: 1,
      bestandsomvang: 12,
      locked: false,
      bestandsdelen: [],
      vertrouwelijkheidaanduiding: 'zaakvertrouwelijk',
      indicatieGebruiksrecht: null,
      inhoud: `${eio.url}/download?versie=1`,
    });
    expect(eio.identificatie).toMatch(/^DOCUMENT-2024-\d{10}$/);
    expect(Number.isNaN(Date.parse(eio.beginRegistratie))).toBe(false);
    const res = await download(eio.url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toContain('brief.txt');
    expect(res.headers['api-version']).toBe('1.5.0');
    expect(res.rawPayload.toString()).toBe('hallo wereld');
    const detail = await t.call('GET', eio.url);
    expect(detail.statusCode).toBe(200);
    expect(detail.json()).toEqual(eio);
  });

  it('takes content larger than the JSON body limit (streamed into the store), escaped slashes included', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 5);
    const text = JSON.stringify(eioBody(iot, { inhoud: b64(bytes) })).replace(/\//g, '\\/');
    const res = await t.call('POST', EIO, text);
    expect(res.statusCode).toBe(201);
    const eio = res.json();
    expect(eio.bestandsomvang).toBe(bytes.length);
    const got = await download(eio.url);
    expect(got.rawPayload.equals(bytes)).toBe(true);
    expect(got.headers['content-length']).toBe(String(bytes.length));
  });

  it('refuses malformed base64, a wrong bestandsomvang, and leaves no file behind', async () => {
    const before = await files();
    expectProblem(await t.call('POST', EIO, eioBody(iot, { inhoud: 'niet*base64' })), 400, 'inhoud');
    expectProblem(await t.call('POST', EIO, eioBody(iot, { inhoud: 'YWJj=ZGVm' })), 400, 'inhoud');
    expectProblem(await t.call('POST', EIO, eioBody(iot, { inhoud: b64('abc'), bestandsomvang: 4 })), 400, 'bestandsomvang');
    // A valid body refused for another reason removes its streamed content too.
    expectProblem(await t.call('POST', EIO, eioBody(iot, { inhoud: b64('abc'), taal: 'nederlands' })), 400, 'taal');
    expect(await files()).toBe(before);
  });

  it('needs a published informatieobjecttype of the Catalogi API', async () => {
    const cat = await catalogus(t, 'DRC1');
    const concept = await create(t, 'informatieobjecttypen', iotBody(cat));
    const r1 = await t.call('POST', EIO, eioBody(concept.url));
    expect(expectProblem(r1, 400, 'informatieobjecttype').code).toBe('not-published');
    const r2 = await t.call('POST', EIO, eioBody(`${concept.url.slice(0, -36)}${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`));
    expect(expectProblem(r2, 400, 'informatieobjecttype').code).toBe('bad-url');
  });

  it('applies the document rules: received documents are past editing (drc-005), the gebruiksrecht indication (drc-006), identificatie unique', async () => {
    const r1 = await t.call('POST', EIO, eioBody(iot, { status: 'in_bewerking', ontvangstdatum: '2024-03-02' }));
    expect(expectProblem(r1, 400, 'status').code).toBe('invalid_for_received');
    const r2 = await t.call('POST', EIO, eioBody(iot, { indicatieGebruiksrecht: true }));
    expect(expectProblem(r2, 400, 'indicatieGebruiksrecht').code).toBe('missing-gebruiksrechten');
    const explicit = await createEio(t, eioBody(iot, { identificatie: 'DOC-UNIEK', vertrouwelijkheidaanduiding: 'geheim' }));
    expect(explicit.vertrouwelijkheidaanduiding).toBe('geheim');
    const r3 = await t.call('POST', EIO, eioBody(iot, { identificatie: 'DOC-UNIEK' }));
    expect(expectProblem(r3, 400, 'identificatie').code).toBe('identificatie-niet-uniek');
  });
});

describe('enkelvoudiginformatieobjecten: locks, versions, delete', () => {
  it('changes only while locked, by the lock holder (drc-009), each change a new version', async () => {
    const eio = await createEio(t, eioBody(iot, { inhoud: b64('versie een') }));
    const { inhoud: _, ...body } = eioBody(iot);
    expect(expectProblem(await t.call('PUT', eio.url, { ...body, lock: 'abc' }), 400, 'nonFieldErrors').code).toBe('unlocked');
    expect(expectProblem(await t.call('PATCH', eio.url, { titel: 'x' }), 400, 'nonFieldErrors').code).toBe('unlocked');
    const l = await lock(t, eio.url);
    expect(l).toMatch(/^[0-9a-f]{32}$/);
    expect(expectProblem(await t.call('POST', `${eio.url}/lock`), 400, 'nonFieldErrors').code).toBe('existing-lock');
    expect((await t.call('GET', eio.url)).json().locked).toBe(true);
    expect(expectProblem(await t.call('PUT', eio.url, body), 400, 'lock').code).toBe('required');
    expect(expectProblem(await t.call('PATCH', eio.url, { titel: 'x' }), 400, 'nonFieldErrors').code).toBe('missing-lock-id');
    expect(expectProblem(await t.call('PATCH', eio.url, { titel: 'x', lock: 'fout' }), 400, 'nonFieldErrors').code).toBe('incorrect-lock-id');

    const put = await t.call('PUT', eio.url, { ...body, titel: 'Tweede', lock: l });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      versie: 2,
      titel: 'Tweede',
      bestandsomvang: 10,
      inhoud: `${eio.url}/download?versie=2`,
      identificatie: eio.identificatie,
    });
    const patch = await t.call('PATCH', eio.url, { inhoud: b64('versie drie!'), lock: l });
    expect(patch.json()).toMatchObject({ versie: 3, titel: 'Tweede', bestandsomvang: 12 });

    // Every version stays readable, by number and by registration moment.
    expect((await t.call('GET', `${eio.url}?versie=1`)).json()).toMatchObject({ versie: 1, titel: 'Aanvraag', locked: true });
    expect((await download(eio.url, '?versie=1')).rawPayload.toString()).toBe('versie een');
    expect((await download(eio.url, '?versie=2')).rawPayload.toString()).toBe('versie een');
    expect((await download(eio.url)).rawPayload.toString()).toBe('versie drie!');
    const at = encodeURIComponent(put.json().beginRegistratie);
    expect((await t.call('GET', `${eio.url}?registratieOp=${at}`)).json().versie).toBe(2);
    expect((await t.call('GET', `${eio.url}?registratieOp=2000-01-01T00:00:00Z`)).statusCode).toBe(404);
    expect((await t.call('GET', `${eio.url}?versie=9`)).statusCode).toBe(404);
    expect((await download(eio.url, '?versie=9')).statusCode).toBe(404);

    const unlock = await t.call('POST', `${eio.url}/unlock`, { lock: l });
    expect(unlock.statusCode).toBe(204);
    expect((await t.call('GET', eio.url)).json().locked).toBe(false);
  });

  it('unlocks with another lock only with documenten.geforceerd-unlock', async () => {
    await drcClient(t, 'drc-lock', [
      {
        scopes: ['documenten.lezen', 'documenten.bijwerken', 'documenten.lock'],
        informatieobjecttype: iot,
        maxVertrouwelijkheidaanduiding: 'geheim',
      },
    ]);
    const limited = token('drc-lock', 'drc-lock-secret');
    const eio = await createEio(t, eioBody(iot));
    await lock(t, eio.url);
    expect(expectProblem(await t.call('POST', `${eio.url}/unlock`, undefined, { token: limited }), 400, 'nonFieldErrors').code).toBe(
      'incorrect-lock-id',
    );
    expect((await t.call('POST', `${eio.url}/unlock`)).statusCode).toBe(204);
  });

  it('deletes a document with every version and all its content; its audit trail is gone with it', async () => {
    const before = await files();
    const eio = await createEio(t, eioBody(iot, { inhoud: b64('een') }));
    const l = await lock(t, eio.url);
    await t.call('PATCH', eio.url, { inhoud: b64('twee'), lock: l });
    expect(await files()).toBe(before + 2);
    expect((await t.call('GET', `${eio.url}/audittrail`)).json()).toHaveLength(2);
    expect((await t.call('DELETE', eio.url)).statusCode).toBe(204);
    expect(await files()).toBe(before);
    expect(await t.mongo.db.collection('enkelvoudiginformatieobject_versies').countDocuments({ _eio: eio.url.split('/').pop() })).toBe(0);
    expect((await t.call('GET', eio.url)).statusCode).toBe(404);
    expect((await download(eio.url)).statusCode).toBe(404);
    expect((await t.call('GET', `${eio.url}/audittrail`)).statusCode).toBe(404);
  });
});

describe('enkelvoudiginformatieobjecten: lists and autorisaties', () => {
  it('filters by identificatie, bronorganisatie and trefwoorden, and pages', async () => {
    const a = await createEio(t, eioBody(iot, { identificatie: 'LIJST-A', bronorganisatie: '111222333', trefwoorden: ['brief', 'aanvraag'] }));
    const b = await createEio(t, eioBody(iot, { identificatie: 'LIJST-B', bronorganisatie: '111222333', trefwoorden: ['besluit'] }));
    const urls = async (q: string) => {
      const res = await t.call('GET', `${EIO}?${q}`);
      expect(res.statusCode).toBe(200);
      return (res.json().results as { url: string }[]).map((r) => r.url);
    };
    expect(await urls('identificatie=LIJST-A')).toEqual([a.url]);
    expect(await urls('bronorganisatie=111222333')).toEqual([a.url, b.url]);
    expect(await urls('trefwoorden=aanvraag')).toEqual([a.url]);
    // Documents with every one of the trefwoorden, as the Catalogi filter of that name.
    expect(await urls('trefwoorden=aanvraag,brief')).toEqual([a.url]);
    expect(await urls('trefwoorden=besluit,aanvraag')).toEqual([]);
    expect(await urls('trefwoorden=besluit')).toEqual([b.url]);
    const all = await t.call('GET', EIO);
    expect(all.json().count).toBeGreaterThanOrEqual(2);
    expect(all.json().next).toBeNull();
    const zoek = await t.call('POST', `${EIO}/_zoek`, { uuid__in: [b.url.split('/').pop()] });
    expect(zoek.statusCode).toBe(200);
    expect(zoek.json().results.map((r: { url: string }) => r.url)).toEqual([b.url]);
  });

  it('shows a client only the documents of its informatieobjecttypen up to its maxVertrouwelijkheidaanduiding', async () => {
    const other = await informatieobjecttype(t);
    await drcClient(t, 'drc-reader', [
      { scopes: ['documenten.lezen'], informatieobjecttype: iot, maxVertrouwelijkheidaanduiding: 'zaakvertrouwelijk' },
    ]);
    const reader = token('drc-reader', 'drc-reader-secret');
    const open = await createEio(t, eioBody(iot, { vertrouwelijkheidaanduiding: 'openbaar' }));
    const secret = await createEio(t, eioBody(iot, { vertrouwelijkheidaanduiding: 'geheim' }));
    const foreign = await createEio(t, eioBody(other));
    const res = await t.call('GET', EIO, undefined, { token: reader });
    const seen = (res.json().results as { url: string }[]).map((r) => r.url);
    expect(seen).toContain(open.url);
    expect(seen).not.toContain(secret.url);
    expect(seen).not.toContain(foreign.url);
    expect(res.json().count).toBe(seen.length);
    // Every filter applies under the autorisaties too.
    const tagged = await createEio(
      t,
      eioBody(iot, { identificatie: 'AUTH-1', bronorganisatie: '222333444', trefwoorden: ['auth'], vertrouwelijkheidaanduiding: 'openbaar' }),
    );
    for (const q of ['identificatie=AUTH-1', 'bronorganisatie=222333444', 'trefwoorden=auth']) {
      const filtered = (await t.call('GET', `${EIO}?${q}`, undefined, { token: reader })).json();
      expect(filtered).toMatchObject({ count: 1, results: [{ url: tagged.url }] });
    }
    const gr = await t.call('POST', `${DRC}/gebruiksrechten`, {
      informatieobject: open.url,
      startdatum: '2024-01-01T00:00:00Z',
      omschrijvingVoorwaarden: 'x',
    });
    expect(gr.statusCode).toBe(201);
    const grs = (await t.call('GET', `${DRC}/gebruiksrechten?informatieobject=${encodeURIComponent(open.url)}`, undefined, { token: reader })).json();
    expect(grs.map((g: { url: string }) => g.url)).toEqual([gr.json().url]);
    expect(
      (await t.call('GET', `${DRC}/gebruiksrechten?informatieobject=${encodeURIComponent(secret.url)}`, undefined, { token: reader })).json(),
    ).toEqual([]);
    expect(
      (await t.call('GET', `${DRC}/objectinformatieobjecten?informatieobject=${encodeURIComponent(open.url)}`, undefined, { token: reader })).json(),
    ).toEqual([]);
    expect(
      (await t.call('GET', `${DRC}/objectinformatieobjecten?object=${encodeURIComponent(open.url)}`, undefined, { token: reader })).json(),
    ).toEqual([]);
    expect((await t.call('GET', open.url, undefined, { token: reader })).statusCode).toBe(200);
    expect((await t.call('GET', secret.url, undefined, { token: reader })).statusCode).toBe(403);
    expect((await download(foreign.url, '', { token: reader })).statusCode).toBe(403);
    // The audit trail needs audittrails.lezen for the document's type and vertrouwelijkheidaanduiding as well.
    expect((await t.call('GET', `${open.url}/audittrail`, undefined, { token: reader })).statusCode).toBe(403);
    await drcClient(t, 'drc-auditor', [
      { scopes: ['documenten.lezen', 'audittrails.lezen'], informatieobjecttype: iot, maxVertrouwelijkheidaanduiding: 'zaakvertrouwelijk' },
    ]);
    const auditor = token('drc-auditor', 'drc-auditor-secret');
    expect((await t.call('GET', `${open.url}/audittrail`, undefined, { token: auditor })).statusCode).toBe(200);
    expect((await t.call('GET', `${secret.url}/audittrail`, undefined, { token: auditor })).statusCode).toBe(403);
    expect((await t.call('GET', `${foreign.url}/audittrail`, undefined, { token: auditor })).statusCode).toBe(403);
    // Writing needs its own scope for the type.
    expectProblem(await t.call('POST', EIO, eioBody(iot), { token: reader }), 403);
    expect(await t.call('GET', `${DRC}/schema/openapi.json`).then((r) => r.statusCode)).toBe(200);
  });
});
