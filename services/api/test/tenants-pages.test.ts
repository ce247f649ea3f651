import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { adminOf, as as asHolder, organisation } from './tenants.fixtures';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';

// The page positions a store remembers for `?page=N` beyond the skip bound (PAGE_SKIP_LIMIT=100 makes page 3 "deep")
// are a tenant's: one organisation reading its pages does not move another's. Each tenant has the same list query
// (the tenant is added to it by the store), with B's zaken created before A's.
const A = '123456782';
const B = '111222333';
const ZAKEN = 210;
let t: TestApp;
let sl: Referentielijsten;

const as = (tok: string): TestApp => asHolder(t, tok);
const tok = adminOf;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url, PAGE_SKIP_LIMIT: '100' });
  for (const rsin of [B, A]) {
    const app = as(await organisation(t, rsin));
    const s = await zaaktypeMetOnderdelen(app, sl);
    for (let i = 0; i < ZAKEN; i++) await createZ(app, 'zaken', zaakBody(s.zaaktype));
  }
}, 180_000);
afterAll(async () => {
  await t?.close();
  await sl?.close();
});

const page = (rsin: string, n: number) => t.call('GET', `${ZRC}/zaken?page=${n}`, undefined, { token: tok(rsin), headers: CRS });

it("answers a tenant's deep page the same after another tenant read its own pages of the same list", async () => {
  const before = await page(B, 3);
  expect(before.statusCode).toBe(200);
  const urls = (res: Awaited<ReturnType<typeof page>>) => (res.json().results as { url: string }[]).map((z) => z.url);
  expect(urls(before)).toHaveLength(ZAKEN - 200);
  for (let n = 1; n <= 3; n++) expect((await page(A, n)).statusCode).toBe(200);
  const after = await page(B, 3);
  expect(after.statusCode).toBe(200);
  expect(urls(after)).toEqual(urls(before));
  // and the other way round: A's page 3 is A's after B read its pages again
  const mine = urls(await page(A, 3));
  for (let n = 1; n <= 3; n++) expect((await page(B, n)).statusCode).toBe(200);
  expect(urls(await page(A, 3))).toEqual(mine);
  expect(mine.some((u) => urls(before).includes(u))).toBe(false);
});
