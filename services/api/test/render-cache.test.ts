import { BSON } from 'mongodb';
import { RenderCache } from '../src/common/resources/render-cache';
import { storedFields, storedId } from '../src/common/storage/stored-bytes';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { EIO, eioBody, informatieobjecttype, putBestandsdeel } from './documenten.fixtures';
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

/**
 * Until the relay has published the events of the stored objects (their bytes change then: the events and the
 * `_pending` flag go): a count of the cache's hits means something only after that.
 */
async function settled(collection: string): Promise<void> {
  for (let i = 0; i < 200 && (await a.mongo.db.collection(collection).countDocuments({ _pending: { $exists: true } })); i++)
    await new Promise((r) => setTimeout(r, 50));
}

describe('the render cache', () => {
  it('writes a page as the API renders it, from texts kept while the zaken stay the same', async () => {
    const zaken = [];
    for (let i = 0; i < 3; i++) zaken.push(await createZ(a, 'zaken', zaakBody(s.zaaktype, { omschrijving: `zaak ${i}` })));
    await settled('zaken');
    const first = await list(a);
    const { hits } = a.deps.renders;
    const again = await list(a);
    // every zaak of the second page came from its kept text, and the answer is byte for byte the uncached one
    expect(a.deps.renders.hits - hits).toBe(again.json().results.length);
    expect(again.body).toBe(first.body);
    expect(again.body).toBe((await list(off)).body);
    expect(again.json().results.map((z: { url: string }) => z.url)).toEqual(expect.arrayContaining(zaken.map((z) => z.url)));
  });

  it('puts an expansion into the kept texts: each zaak as the page without it shows it, its `_expand` last', async () => {
    const zaak = await createZ(a, 'zaken', zaakBody(s.zaaktype, { omschrijving: 'uitgeklapt' }));
    const rol = await createZ(a, 'rollen', {
      zaak: zaak.url,
      roltype: s.roltype,
      betrokkeneType: 'natuurlijk_persoon',
      roltoelichting: 't',
      betrokkeneIdentificatie: { inpBsn: '111222333', geslachtsnaam: 'Jansen' },
    });
    await settled('zaken');
    const q = `?identificatie=${zaak.identificatie}`;
    const plain = (await list(a, q)).json().results[0];
    const { hits } = a.deps.renders;
    const expanded = await list(a, `${q}&expand=rollen`);
    expect(a.deps.renders.hits - hits).toBe(1);
    // written as JSON.stringify writes the whole answer: the zaak's kept text, then its `_expand`
    expect(expanded.body).toBe(JSON.stringify(expanded.json()));
    const { _expand, ...rest } = expanded.json().results[0];
    expect(Object.keys(expanded.json().results[0]).at(-1)).toBe('_expand');
    expect(rest).toEqual(plain);
    expect(_expand).toEqual({ rollen: [(await a.call('GET', rol.url, undefined, { headers: CRS })).json()] });
    expect(expanded.body).toBe((await list(off, `${q}&expand=rollen`)).body);
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
    await settled('zaken');
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

describe('the render cache for documents', () => {
  const documents = async (t: TestApp, query: string, version?: string) => {
    const res = await t.call('GET', `${EIO}${query}`, undefined, version ? { headers: { 'Api-Version': version } } : {});
    expect(res.statusCode).toBe(200);
    return res;
  };

  it('keeps a document per served version, and never one whose bestandsdelen are being uploaded', async () => {
    const iot = await informatieobjecttype(a);
    const doc = (await a.call('POST', EIO, eioBody(iot, { identificatie: 'RC-DOC-1' }))).json();
    const q = '?identificatie=RC-DOC-1';
    await settled('enkelvoudiginformatieobjecten');
    const v15 = await documents(a, q, '1.5.0');
    const v17 = await documents(a, q, '1.7.0');
    expect(v15.json().results[0]).toMatchObject({ url: doc.url });
    expect(v15.body).not.toBe(v17.body);
    const { hits } = a.deps.renders;
    expect((await documents(a, q, '1.5.0')).body).toBe(v15.body);
    expect((await documents(a, q, '1.7.0')).body).toBe(v17.body);
    expect(a.deps.renders.hits - hits).toBe(2);
    expect((await documents(a, q, '1.7.0')).body).toBe((await documents(off, q, '1.7.0')).body);

    // Bestandsdelen live in their own collection: their progress shows while the document's bytes stay the same.
    const big = (await a.call('POST', EIO, eioBody(iot, { identificatie: 'RC-DOC-2', inhoud: null, bestandsomvang: 3 }))).json();
    const shownParts = async () =>
      (await documents(a, '?identificatie=RC-DOC-2')).json().results[0].bestandsdelen.map((p: { voltooid: boolean }) => p.voltooid);
    expect(await shownParts()).toEqual([false]);
    const put = await putBestandsdeel(a, big.bestandsdelen[0].url, { lock: big.lock }, Buffer.from('abc'));
    expect(put.statusCode).toBe(200);
    expect(await shownParts()).toEqual([true]);
  });
});

describe('RenderCache', () => {
  it('holds at most its bound, dropping the entries stored longest ago, and renders a changed object again', async () => {
    const stored = (n: number, x = 'a') => Buffer.from(BSON.serialize({ _id: `id-${n}`, x: x.repeat(200) }));
    const size = stored(0).length + Buffer.from(JSON.stringify({ n: 0, x: 'a'.repeat(200) })).length + 'k0'.length + 's'.length;
    // (room for about 16 such entries; one more than a sixteenth of the bound would not be kept at all)
    const bound = (size + 8) * 16;
    const cache = new RenderCache(bound);
    let rendered = 0;
    const render = async (doc: Record<string, unknown>) => {
      rendered++;
      return { n: Number(String(doc._id).slice(3)), x: doc.x };
    };
    for (let n = 0; n < 20; n++) await cache.get('s', `k${n}`, stored(n), render);
    expect(cache.heldBytes).toBeLessThanOrEqual(bound);
    expect(rendered).toBe(20);
    await cache.get('s', 'k19', stored(19), render);
    expect(rendered).toBe(20);
    await cache.get('s', 'k0', stored(0), render);
    expect(rendered).toBe(21);
    expect((await cache.get('s', 'k19', stored(19, 'b'), render)).text.toString()).toContain('b'.repeat(200));
    expect(rendered).toBe(22);
    expect(cache.heldBytes).toBeLessThanOrEqual(bound);
  });

  it('drops the objects kept longest ago first: one kept again, however often, goes with the newest', async () => {
    const stored = (n: number, v = 0) => Buffer.from(BSON.serialize({ _id: `id-${n}`, v, x: 'a'.repeat(200) }));
    const size = stored(0).length + Buffer.from(JSON.stringify({ id: 'id-0', v: 0, x: 'a'.repeat(200) })).length + 'k0'.length + 's'.length;
    const cache = new RenderCache((size + 8) * 16); // (room for about 16 such entries)
    const render = async (doc: Record<string, unknown>) => ({ id: doc._id, v: doc.v, x: doc.x });
    for (let n = 0; n < 10; n++) await cache.get('s', `k${n}`, stored(n), render);
    // k0 changed many times (each a new rendering kept in place of the last, back in last): it goes with the newest
    for (let v = 1; v <= 1000; v++) await cache.get('s', 'k0', stored(0, v), render);
    for (let n = 10; n < 21; n++) await cache.get('s', `k${n}`, stored(n), render);
    const kept = (n: number, v = 0) => cache.kept('s', `k${n}`, stored(n, v)) !== undefined;
    expect(kept(0, 1000)).toBe(true);
    expect([1, 2, 3, 4, 5].map((n) => kept(n))).toEqual([false, false, false, false, false]);
    expect([6, 7, 8, 9, 20].map((n) => kept(n))).toEqual([true, true, true, true, true]);
    // k6 so often that the map rehashes while the walk that finds the oldest goes on: the others keep their order
    for (let v = 1; v <= 3000; v++) await cache.get('s', 'k6', stored(6, v), render);
    for (let n = 21; n < 26; n++) await cache.get('s', `k${n}`, stored(n), render);
    expect([7, 8, 9, 10].map((n) => kept(n))).toEqual([false, false, false, false]);
    expect(kept(0, 1000)).toBe(false);
    expect([kept(6, 3000), kept(11), kept(25)]).toEqual([true, true, true]);
    expect(cache.heldBytes).toBeLessThanOrEqual((size + 8) * 16);
  });

  it("holds no more memory than its bound: what it keeps is cut from blocks of its own, not from Node's shared slabs", async () => {
    const bound = 8 * 1024 * 1024;
    const cache = new RenderCache(bound);
    const stored = (n: number) => Buffer.from(BSON.serialize({ _id: `id-${n}`, x: `${n}`.repeat(300) }));
    const render = async (doc: Record<string, unknown>) => ({ id: doc._id, x: doc.x });
    const transient: Buffer[] = [];
    const total = 10_000; // entries of about 3 KB: about four times what the bound holds
    for (let n = 0; n < total; n++) {
      await cache.get('s', `k${n}`, stored(n), render);
      transient.push(Buffer.from('t'.repeat(3000))); // (what a request cuts from the shared slabs beside)
      if (transient.length > 100) transient.shift();
    }
    const held = new Set<ArrayBufferLike>();
    let kept = 0;
    for (let n = total - 1; n >= 0; n--) {
      const entry = cache.kept('s', `k${n}`, stored(n));
      if (!entry) break;
      kept++;
      held.add(entry.text.buffer);
    }
    expect(kept).toBeGreaterThan(2_000);
    expect(cache.heldBytes).toBeLessThanOrEqual(bound);
    // the memory behind the kept entries: the bound, and at most one block more (the one being filled)
    expect([...held].reduce((n, b) => n + b.byteLength, 0)).toBeLessThanOrEqual(bound + 256 * 1024);
  });

  it('keeps an object apart per scope (tenant, resource, version): one is never served for another', async () => {
    const cache = new RenderCache(1024 * 1024);
    const stored = Buffer.from(BSON.serialize({ _id: 'z1', x: 1 }));
    const as = (version: string) => async (doc: Record<string, unknown>) => ({ id: doc._id, version });
    expect((await cache.get('t|zaak|1.5', 'z1', stored, as('1.5'))).text.toString()).toBe('{"id":"z1","version":"1.5"}');
    expect((await cache.get('t|zaak|1.7', 'z1', stored, as('1.7'))).text.toString()).toBe('{"id":"z1","version":"1.7"}');
    const unused = async () => {
      throw new Error('rendered again');
    };
    expect((await cache.get('t|zaak|1.5', 'z1', stored, unused)).text.toString()).toBe('{"id":"z1","version":"1.5"}');
    expect((await cache.get('t|zaak|1.7', 'z1', stored, unused)).text.toString()).toBe('{"id":"z1","version":"1.7"}');
    expect(cache.kept('u|zaak|1.5', 'z1', stored)).toBeUndefined();
    expect(cache.kept(undefined, 'z1', stored)).toBeUndefined();
    expect(cache.hits).toBe(2);
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

describe('storedFields', () => {
  it('decodes the named top-level fields of a stored document, whatever is stored around them', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const all = {
      _id: 'e7b1c2d4-aaaa-4bbb-8ccc-000000000002',
      d: 1.5,
      o: { p: [1, 'q'], _created: 'nested, not this one' },
      nul: null,
      t: true,
      re: new BSON.BSONRegExp('a.c', 'i'),
      bin: new BSON.Binary(Buffer.from('xy')),
      oid: new BSON.ObjectId(),
      dec: BSON.Decimal128.fromString('1.2'),
      l: BSON.Long.fromNumber(3),
      ts: new BSON.Timestamp({ t: 1, i: 2 }),
      _created: at,
      startdatum: '2024-05-06',
      i: 5,
      z: 'after',
    };
    const stored = Buffer.from(BSON.serialize(all));
    const whole = BSON.deserialize(stored);
    expect(storedFields(stored, ['_created', '_id'])).toEqual({ _id: all._id, _created: at });
    expect(storedFields(stored, ['startdatum', 'z', 'nul', 'absent'])).toEqual({ startdatum: '2024-05-06', nul: null, z: 'after' });
    for (const f of Object.keys(all)) expect(storedFields(stored, [f])).toEqual({ [f]: whole[f] });
    expect(storedFields(stored, ['_crea'])).toEqual({});
    expect(storedFields(stored, ['_createdX', 'startdatu'])).toEqual({});
    // a name that is not ASCII is found too (the document is decoded whole for it, as one the walk cannot follow)
    const named = Buffer.from(BSON.serialize({ a: 1, één: 'x', ß: 2 }));
    expect(storedFields(named, ['één', 'a'])).toMatchObject({ a: 1, één: 'x' });
  });
});
