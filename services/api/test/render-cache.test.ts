import { BSON } from 'mongodb';
import { storedId } from '../src/common/platform/render-cache';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

// Two instances on one database (a write on one, a read on the other), and a third with the render cache off: the
// answers it writes are the reference.
let a: TestApp;
let b: TestApp;
let off: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
beforeAll(async () => {
  sl = await startReferentielijsten();
  a = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  b = await startApp({ REFERENTIELIJSTEN_URL: sl.url }, { shareWith: a });
  off = await startApp({ REFERENTIELIJSTEN_URL: sl.url, RENDER_CACHE_MB: '0' }, { shareWith: a });
  s = await zaaktypeMetOnderdelen(a, sl);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), off.close()]);
  await sl.close();
});

const list = async (t: TestApp, query = '', tok?: string) => {
  const res = await t.call('GET', `${ZRC}/zaken${query}`, undefined, { headers: CRS, ...(tok ? { token: tok } : {}) });
  expect(res.statusCode).toBe(200);
  return res;
};

describe('the render cache', () => {
  it('writes a page as the API renders it, from texts kept while the zaken stay the same', async () => {
    const zaken = [];
    for (let i = 0; i < 3; i++) zaken.push(await createZ(a, 'zaken', zaakBody(s.zaaktype, { omschrijving: `zaak ${i}` })));
    const first = await list(a);
    const { hits } = a.deps.renders;
    const again = await list(a);
    // every zaak of the second page came from its kept text, and the answer is byte for byte the uncached one
    expect(a.deps.renders.hits - hits).toBe(again.json().results.length);
    expect(again.body).toBe(first.body);
    expect(again.body).toBe((await list(off)).body);
    expect(again.json().results.map((z: { url: string }) => z.url)).toEqual(expect.arrayContaining(zaken.map((z) => z.url)));
  });

  it('never serves a kept text after its zaak changed, also when another instance changed it', async () => {
    const zaak = await createZ(a, 'zaken', zaakBody(s.zaaktype, { omschrijving: 'voor' }));
    const shown = async (t: TestApp) => (await list(t, `?identificatie=${zaak.identificatie}`)).json().results[0];
    expect(await shown(a)).toMatchObject({ url: zaak.url, omschrijving: 'voor' });
    // changed through the other instance: no message reaches this one's cache, the stored bytes differ
    const patched = await b.call('PATCH', zaak.url, { omschrijving: 'na' }, { headers: CRS });
    expect(patched.statusCode).toBe(200);
    expect(await shown(a)).toMatchObject({ url: zaak.url, omschrijving: 'na' });
    // and through the store itself (a tool beside the API)
    await a.mongo.db.collection('zaken').updateOne({ _id: zaak.uuid } as never, { $set: { omschrijving: 'buiten de API' } });
    expect(await shown(a)).toMatchObject({ omschrijving: 'buiten de API' });
    expect((await list(a, `?identificatie=${zaak.identificatie}`)).body).toBe((await list(off, `?identificatie=${zaak.identificatie}`)).body);
  });

  it('never shows a kept text to a caller who may not see its zaak', async () => {
    const other = await zaaktypeMetOnderdelen(a, sl, { identificatie: 'ZT-RC' });
    const hidden = await createZ(a, 'zaken', zaakBody(other.zaaktype, { omschrijving: 'niet voor iedereen' }));
    const visible = await createZ(a, 'zaken', zaakBody(s.zaaktype, { omschrijving: 'voor iedereen' }));
    // both kept, by a caller who sees everything
    const all = (await list(a)).json().results.map((z: { url: string }) => z.url);
    expect(all).toEqual(expect.arrayContaining([hidden.url, visible.url]));
    await a.client('rc-beperkt', 'rc-beperkt-secret');
    const app = await a.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: ['rc-beperkt'],
      label: 'rc-beperkt',
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'zeer_geheim' }],
    });
    expect(app.statusCode).toBe(201);
    const { hits } = a.deps.renders;
    const page = (await list(a, '', token('rc-beperkt', 'rc-beperkt-secret'))).json();
    const urls = page.results.map((z: { url: string }) => z.url);
    expect(urls).toContain(visible.url);
    expect(urls).not.toContain(hidden.url);
    expect(page.count).toBe(urls.length);
    expect(a.deps.renders.hits).toBeGreaterThan(hits);
  });
});

describe('storedId', () => {
  it('finds a string _id wherever it is stored, and nothing else', () => {
    const id = 'e7b1c2d4-aaaa-4bbb-8ccc-000000000001';
    expect(storedId(Buffer.from(BSON.serialize({ _id: id, a: 1 })))).toBe(id);
    const before = { d: 1.5, s: 'x', o: { p: [1, 'q'] }, n: null, t: true, at: new Date(), i: 5, l: BSON.Long.fromNumber(3) };
    const more = { bin: new BSON.Binary(Buffer.from('xy')), oid: new BSON.ObjectId(), dec: BSON.Decimal128.fromString('1.2') };
    expect(storedId(Buffer.from(BSON.serialize({ ...before, ...more, _id: id, z: 1 })))).toBe(id);
    expect(storedId(Buffer.from(BSON.serialize({ _id: new BSON.ObjectId() })))).toBeUndefined();
    expect(storedId(Buffer.from(BSON.serialize({ a: 1 })))).toBeUndefined();
  });
});
