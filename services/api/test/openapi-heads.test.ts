import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';
import { createEio, eioBody, informatieobjecttype } from './documenten.fixtures';

// The standard's files declare a HEAD beside the detail GETs of Zaken, Catalogi and Documenten, with If-None-Match on
// both: a HEAD answers the detail's ETag without a body, and a request naming the current ETag answers 304.
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

async function conditional(url: string, headers: Record<string, string> = {}): Promise<void> {
  const get = await t.call('GET', url, undefined, { headers });
  expect(get.statusCode).toBe(200);
  const etag = get.headers.etag as string;
  expect(etag).toMatch(/^"[0-9a-f]+"$/);
  const head = await t.call('HEAD', url, undefined, { headers });
  expect(head.statusCode).toBe(200);
  expect(head.headers.etag).toBe(etag);
  expect(head.body).toBe('');
  for (const method of ['GET', 'HEAD'] as const) {
    const again = await t.call(method, url, undefined, { headers: { ...headers, 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const stale = await t.call(method, url, undefined, { headers: { ...headers, 'if-none-match': '"0"' } });
    expect(stale.statusCode).toBe(200);
  }
}

it('a zaak, a zaaktype and a document answer HEAD with the ETag of their detail, and 304 for the current ETag', async () => {
  const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
  await conditional(zaak.url, CRS);
  await conditional(s.zaaktype);
  const eio = await createEio(t, eioBody(await informatieobjecttype(t)));
  await conditional(eio.url);
});

it('every HEAD the documents declare is an operation `<resource>_headers` beside a detail GET, without a scope', async () => {
  for (const component of ['zaken', 'catalogi', 'documenten']) {
    const doc = (await t.call('GET', `/${component}/api/v1/schema/openapi.json`, undefined, { token: null })).json();
    const heads = Object.entries(doc.paths as Record<string, Record<string, { operationId: string; security?: unknown }>>).filter(
      ([, ops]) => ops.head,
    );
    expect(heads.length).toBeGreaterThan(3);
    for (const [path, ops] of heads) {
      expect(ops.get).toBeDefined();
      expect(ops.head!.operationId).toBe(ops.get!.operationId.replace(/_retrieve$/, '_headers'));
      expect(ops.head!.security).toBeUndefined();
      expect(path).toMatch(/\{uuid\}$/);
    }
  }
  expect((await t.call('HEAD', `${ZRC}/zaken/00000000-0000-4000-8000-000000000000`, undefined, { headers: CRS })).statusCode).toBe(404);
});
