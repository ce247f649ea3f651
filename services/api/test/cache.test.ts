import { CacheRegion } from '../src/common/storage/cache';
import { ZTC, catalogus, create, limitedClient, zaaktypeBody } from './catalogi.fixtures';
import { eventually, startApp, type TestApp } from './harness';

const AC = '/autorisaties/api/v1';

describe('CacheRegion', () => {
  it('loads once, and again after a clear', async () => {
    const region = new CacheRegion<number>(60_000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await region.getOrLoad('k', load)).toBe(1);
    expect(await region.getOrLoad('k', load)).toBe(1);
    region.clear();
    expect(await region.getOrLoad('k', load)).toBe(2);
  });

  it('does not keep a value loaded while the region was cleared', async () => {
    const region = new CacheRegion<string>(60_000);
    let release!: () => void;
    const slow = region.getOrLoad('k', () => new Promise<string>((r) => (release = () => r('old'))));
    region.clear(); // a write lands while the read is still loading
    release();
    expect(await slow).toBe('old');
    expect(await region.getOrLoad('k', async () => 'new')).toBe('new');
  });

  it('expires entries after the TTL, skips what keep refuses, and caches nothing with TTL 0', async () => {
    const short = new CacheRegion<number>(30);
    await short.getOrLoad('k', async () => 1);
    await new Promise((r) => setTimeout(r, 60));
    expect(await short.getOrLoad('k', async () => 2)).toBe(2);

    const region = new CacheRegion<number | null>(60_000);
    await region.getOrLoad(
      'missing',
      async () => null,
      (v) => v !== null,
    );
    expect(await region.getOrLoad('missing', async () => 3)).toBe(3);

    const off = new CacheRegion<number>(0);
    await off.getOrLoad('k', async () => 1);
    expect(await off.getOrLoad('k', async () => 2)).toBe(2);
    expect(off.size).toBe(0);
  });
});

describe('read cache in one instance', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ CACHE_TTL_MS: '600000' });
  });
  afterAll(() => t.close());

  it('a zaaktype read after adding a statustype shows it', async () => {
    const zt = await create(t, 'zaaktypen', zaaktypeBody(await catalogus(t)));
    expect((await t.call('GET', zt.url)).json().statustypen).toEqual([]);
    expect((await t.call('GET', `${ZTC}/zaaktypen?status=alles`)).json().count).toBe(1);
    const st = await create(t, 'statustypen', { zaaktype: zt.url, omschrijving: 'Ontvangen', volgnummer: 1 });
    expect((await t.call('GET', zt.url)).json().statustypen).toEqual([st.url]);
    await t.call('DELETE', st.url);
    expect((await t.call('GET', zt.url)).json().statustypen).toEqual([]);
    expect((await t.call('GET', st.url)).statusCode).toBe(404);
    await create(t, 'zaaktypen', zaaktypeBody(zt.catalogus, { identificatie: 'ZT-2' }));
    expect((await t.call('GET', `${ZTC}/zaaktypen?status=alles`)).json().count).toBe(2);
  });

  it('a changed applicatie governs the very next request', async () => {
    const tok = await limitedClient(t, 'cache-client', ['catalogi.lezen']);
    expect((await t.call('GET', `${ZTC}/catalogussen`, undefined, { token: tok })).statusCode).toBe(200);
    const app = (await t.call('GET', `${AC}/applicaties/consumer?clientId=cache-client`)).json();
    const patched = await t.call('PATCH', app.url, { autorisaties: [{ component: 'ztc', scopes: ['catalogi.schrijven'] }] });
    expect(patched.statusCode).toBe(200);
    expect((await t.call('GET', `${ZTC}/catalogussen`, undefined, { token: tok })).statusCode).toBe(403);
  });

  it('a removed credential stops working at once', async () => {
    const tok = await limitedClient(t, 'cache-removed', ['catalogi.lezen']);
    expect((await t.call('GET', `${ZTC}/catalogussen`, undefined, { token: tok })).statusCode).toBe(200);
    expect((await t.call('DELETE', '/admin/api/v1/credentials/cache-removed')).statusCode).toBe(204);
    expect((await t.call('GET', `${ZTC}/catalogussen`, undefined, { token: tok })).statusCode).toBe(403);
  });
});

describe('read cache across instances', () => {
  // A TTL far beyond the test's patience: only the Kafka broadcast can make the other instance see a write.
  const env = { CACHE_TTL_MS: '600000' };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startApp(env, { broadcast: true });
    b = await startApp(env, { shareWith: a, broadcast: true });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('a write on one instance clears what the other has cached', async () => {
    const zt = await create(a, 'zaaktypen', zaaktypeBody(await catalogus(a)));
    expect((await b.call('GET', zt.url)).json().statustypen).toEqual([]);
    const st = await create(a, 'statustypen', { zaaktype: zt.url, omschrijving: 'Ontvangen', volgnummer: 1 });
    expect(await eventually(async () => (await b.call('GET', zt.url)).json().statustypen.includes(st.url))).toBe(true);
  });

  it('a write clears (and sends to the others) only a region the instances keep: Zaken and Documenten keep none', async () => {
    const clear = jest.spyOn(a.deps.caches, 'clear');
    try {
      const crs = { 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' };
      expect((await a.call('POST', '/zaken/api/v1/zaken', {}, { headers: crs })).statusCode).toBe(400);
      expect((await a.call('POST', '/documenten/api/v1/enkelvoudiginformatieobjecten', {})).statusCode).toBe(400);
      expect(clear).not.toHaveBeenCalled();
      await catalogus(a);
      expect(clear.mock.calls.map(([region]) => region)).toEqual(['catalogi']);
    } finally {
      clear.mockRestore();
    }
  });

  it('an applicatie changed on one instance governs the other', async () => {
    const tok = await limitedClient(a, 'cache-multi', ['catalogi.lezen']);
    expect((await b.call('GET', `${ZTC}/catalogussen`, undefined, { token: tok })).statusCode).toBe(200);
    const app = (await a.call('GET', `${AC}/applicaties/consumer?clientId=cache-multi`)).json();
    expect((await a.call('PATCH', app.url, { autorisaties: [{ component: 'ztc', scopes: ['catalogi.schrijven'] }] })).statusCode).toBe(200);
    expect(await eventually(async () => (await b.call('GET', `${ZTC}/catalogussen`, undefined, { token: tok })).statusCode === 403)).toBe(true);
  });
});
