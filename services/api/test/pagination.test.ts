import { Store } from '../src/common/storage/store';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

// Keyset continuation behind ?page=N and the counts maintained per authorisation bucket, on the Zaken list.
// PAGE_SKIP_LIMIT=100 makes page 3 already "deep" (a skip of 200), so the deep-page paths run on a few hundred zaken.

let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
const ZAKEN = 230;
const VERTROUWELIJK = ['openbaar', 'intern', 'geheim'];

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url, PAGE_SKIP_LIMIT: '100' });
  s = await zaaktypeMetOnderdelen(t, sl);
  for (let i = 0; i < ZAKEN; i++) {
    await createZ(
      t,
      'zaken',
      zaakBody(s.zaaktype, {
        startdatum: `2024-03-0${(i % 5) + 1}`,
        archiefactiedatum: i % 3 === 0 ? null : `2030-01-0${(i % 4) + 1}`,
        vertrouwelijkheidaanduiding: VERTROUWELIJK[i % 3],
      }),
    );
  }
}, 120_000);
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
  await sl.close();
});

const get = (url: string, tok?: string) => t.call('GET', url, undefined, { headers: CRS, ...(tok ? { token: tok } : {}) });

/** The live zaken in the order MongoDB sorts them (null first ascending, last descending; ties by _id). */
async function truth(field: string, dir: 1 | -1, filter: Record<string, unknown> = {}): Promise<string[]> {
  const docs = await t.mongo.db
    .collection('zaken')
    .find({ ...filter, _tombstone: { $exists: false } } as never)
    .sort({ [field]: dir, _id: dir })
    .toArray();
  return docs.map((d) => `http://127.0.0.1:8000${ZRC}/zaken/${d._id}`);
}

/** Follows `next` links from `url` and returns every page's urls. */
async function walk(url: string, tok?: string): Promise<{ pages: string[][]; links: string[] }> {
  const pages: string[][] = [];
  const links: string[] = [];
  for (let next: string | null = url; next;) {
    const res = await get(next, tok);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    pages.push(body.results.map((r: { url: string }) => r.url));
    next = body.next;
    if (next) links.push(next);
  }
  return { pages, links };
}

describe('keyset continuation behind page=N', () => {
  it('follows next links through every zaak once, and a zaak deleted on a seen page moves nothing', async () => {
    const first = (await get(`${ZRC}/zaken`)).json();
    expect(first.count).toBe(ZAKEN);
    expect(first.next).toMatch(/[?&]page=2&cursor=/);
    // Deleting a zaak of page 1 after reading it: a skip-based page 2 would now start one zaak later and lose one.
    expect((await t.call('DELETE', first.results[0].url)).statusCode).toBe(204);
    const expected = await truth('_created', 1);
    const { pages } = await walk(first.next);
    expect([...first.results.slice(1).map((r: { url: string }) => r.url), ...pages.flat()]).toEqual(expected);
  });

  it.each([
    ['archiefactiedatum', 1],
    ['-archiefactiedatum', -1],
    ['-startdatum', -1],
  ] as const)('orders by %s with ties and nulls across pages', async (ordering, dir) => {
    const { pages, links } = await walk(`${ZRC}/zaken?ordering=${ordering}`);
    expect(links.every((l) => l.includes('cursor='))).toBe(true);
    expect(pages.flat()).toEqual(await truth(ordering.replace('-', ''), dir));
  });

  it('leads back through previous links to the same pages', async () => {
    const { pages } = await walk(`${ZRC}/zaken?ordering=startdatum`);
    let res = (await get(`${ZRC}/zaken?ordering=startdatum&page=${pages.length}`)).json();
    const back: string[][] = [res.results.map((r: { url: string }) => r.url)];
    while (res.previous) {
      res = (await get(res.previous)).json();
      back.unshift(res.results.map((r: { url: string }) => r.url));
    }
    expect(back).toEqual(pages);
  });

  it('serves a page beyond the skip bound without skipping past it, also with no page seen before', async () => {
    const find = jest.spyOn(Store.prototype, 'find');
    const findStored = jest.spyOn(Store.prototype, 'findStored');
    const expected = await truth('registratiedatum', -1);
    const page3 = (await get(`${ZRC}/zaken?ordering=-registratiedatum&page=3`)).json();
    expect(page3.results.map((r: { url: string }) => r.url)).toEqual(expected.slice(200, 300));
    const skips = [...find.mock.calls, ...findStored.mock.calls].map(([, opts]) => opts?.skip ?? 0);
    expect(findStored).toHaveBeenCalled();
    expect(Math.max(...skips)).toBeLessThanOrEqual(100);
    // page 2 links to page 3 with a continuation that gives the same page
    const page2 = (await get(`${ZRC}/zaken?ordering=-registratiedatum&page=2`)).json();
    expect((await get(page2.next)).json().results).toEqual(page3.results);
    find.mockRestore();
    findStored.mockRestore();
  });

  it('serves a deep page asked again, and every page before it, by a seek from its remembered boundary: no skip, no walk', async () => {
    const expected = await truth('startdatum', 1);
    const deepest = Math.ceil(expected.length / 100);
    expect(deepest).toBeGreaterThanOrEqual(3);
    const first = (await get(`${ZRC}/zaken?ordering=startdatum&page=${deepest}`)).json();
    expect(first.results.map((r: { url: string }) => r.url)).toEqual(expected.slice((deepest - 1) * 100, deepest * 100));
    // (the list reads its page as stored bytes: findStored; a walk reads sort keys with find)
    const find = jest.spyOn(Store.prototype, 'find');
    const findStored = jest.spyOn(Store.prototype, 'findStored');
    for (let page = deepest; page >= 2; page--) {
      find.mockClear();
      findStored.mockClear();
      const again = (await get(`${ZRC}/zaken?ordering=startdatum&page=${page}`)).json();
      expect(again.results.map((r: { url: string }) => r.url)).toEqual(expected.slice((page - 1) * 100, page * 100));
      const reads = [...find.mock.calls, ...findStored.mock.calls].map(
        ([, opts]) => (opts ?? {}) as { limit?: number; skip?: number; projection?: object },
      );
      expect(reads).toHaveLength(1);
      expect(reads[0]).toMatchObject({ limit: 100 });
      expect(reads[0]!.skip ?? 0).toBe(0);
      expect(reads[0]!.projection).toBeUndefined();
    }
    find.mockRestore();
    findStored.mockRestore();
  });

  it('walks to a deep page once when many ask for it at the same time', async () => {
    // a filter no other test lists by, so no boundary of this query is remembered yet
    const expected = await truth('_created', 1, { zaaktype: s.zaaktype });
    const deepest = Math.ceil(expected.length / 100);
    expect(deepest).toBeGreaterThanOrEqual(3);
    const find = jest.spyOn(Store.prototype, 'find');
    const findStored = jest.spyOn(Store.prototype, 'findStored');
    const url = `${ZRC}/zaken?zaaktype=${encodeURIComponent(s.zaaktype)}&page=${deepest}`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(url)));
    for (const a of answers) expect(a.json().results.map((r: { url: string }) => r.url)).toEqual(expected.slice((deepest - 1) * 100));
    // the walk reads sort keys only (a projection): one walk's reads, not one per request
    const walked = find.mock.calls.filter(([, opts]) => opts?.projection).length;
    expect(walked).toBeGreaterThan(0);
    expect(walked).toBeLessThanOrEqual(deepest);
    expect(findStored.mock.calls.filter(([, opts]) => opts?.limit === 100)).toHaveLength(8);
    find.mockRestore();
    findStored.mockRestore();
  });

  it('answers a page past the end with 404 and ignores a continuation that is not its own', async () => {
    expect((await get(`${ZRC}/zaken?page=99`)).statusCode).toBe(404);
    const res = await get(`${ZRC}/zaken?page=1&cursor=not-a-cursor`);
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toHaveLength(100);
  });
});

describe('counts maintained per authorisation bucket', () => {
  it('counts a client restricted by autorisaties without counting documents, through creates, changes and deletes', async () => {
    const clientId = 'zrc-bucket-reader';
    await t.client(clientId, 'secret-1');
    const app = await t.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: [clientId],
      label: clientId,
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'intern' }],
    });
    expect(app.statusCode).toBe(201);
    const reader = token(clientId, 'secret-1');
    const visible = () => truth('_created', 1, { zaaktype: s.zaaktype, _vertrouwelijkheid: { $lte: 2 } });
    const count = jest.spyOn(Store.prototype, 'count');
    const list = async () => (await get(`${ZRC}/zaken`, reader)).json();
    let res = await list();
    expect(res.count).toBe((await visible()).length);
    expect(count).not.toHaveBeenCalled();

    const [a, b] = res.results as { url: string }[];
    expect((await t.call('PATCH', a!.url, { vertrouwelijkheidaanduiding: 'geheim' }, { headers: CRS })).statusCode).toBe(200);
    expect((await t.call('DELETE', b!.url)).statusCode).toBe(204);
    await createZ(t, 'zaken', zaakBody(s.zaaktype, { vertrouwelijkheidaanduiding: 'openbaar' }));
    res = await list();
    expect(res.count).toBe((await visible()).length);
    expect(res.count).toBe(res.results.length + (res.next ? (await walk(res.next, reader)).pages.flat().length : 0));
    expect(count).not.toHaveBeenCalled();
    count.mockRestore();

    // A count that drifted (a crash between a write and its adjustment) is repaired by recount, which runs at start.
    const counts = t.mongo.db.collection('zaken_counts');
    // (a bucket is a tenant's: the tenant leads its values)
    await counts.updateOne({ _id: JSON.stringify([t.config.ZGW_DEFAULT_TENANT, s.zaaktype, 0]) } as never, { $inc: { n: 7 } });
    expect((await list()).count).toBe((await visible()).length + 7);
    const store = t.deps.components.zaken!.zaken.store;
    expect(await store.recount()).toBe(1);
    expect((await list()).count).toBe((await visible()).length);
  });

  it('counts the parts of zaken (rollen) the same way, also when a zaak changes vertrouwelijkheidaanduiding', async () => {
    const clientId = 'zrc-rollen-reader';
    await t.client(clientId, 'secret-2');
    await t.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: [clientId],
      label: clientId,
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'intern' }],
    });
    const reader = token(clientId, 'secret-2');
    const zaken = (await get(`${ZRC}/zaken`, reader)).json().results.slice(0, 3) as { url: string }[];
    for (const zaak of zaken) {
      await createZ(t, 'rollen', {
        zaak: zaak.url,
        roltype: s.roltype,
        betrokkeneType: 'medewerker',
        roltoelichting: 'x',
        betrokkene: 'https://x.example/m',
      });
    }
    const visible = async () =>
      t.mongo.db
        .collection('rollen')
        .countDocuments({ _zaaktype: s.zaaktype, _vertrouwelijkheid: { $lte: 2 }, _tombstone: { $exists: false } } as never);
    const count = jest.spyOn(Store.prototype, 'count');
    expect((await get(`${ZRC}/rollen`, reader)).json().count).toBe(await visible());
    expect(await visible()).toBeGreaterThanOrEqual(3);
    expect((await t.call('PATCH', zaken[0]!.url, { vertrouwelijkheidaanduiding: 'geheim' }, { headers: CRS })).statusCode).toBe(200);
    const after = (await get(`${ZRC}/rollen`, reader)).json();
    expect(after.count).toBe(await visible());
    expect(after.results.map((r: { zaak: string }) => r.zaak)).not.toContain(zaken[0]!.url);
    expect(count).not.toHaveBeenCalled();
    count.mockRestore();
  });
});
