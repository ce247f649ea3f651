import { randomUUID } from 'node:crypto';
import { inTenant } from '@zgw/shared';
import type { Resource } from '../src/common/platform/resource';
import { GroupLoader } from '../src/components/catalogi/relations';
import type { CatalogiDoc } from '../src/components/catalogi/schemas';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { adminOf, as as asHolder, organisation } from './tenants.fixtures';
import { zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

// The batched reads of a zaaktype's parts (GroupLoader) gather the keys concurrent requests ask for in one tick: a
// batch of two organisations' requests is read per tenant, each request getting its own organisation's parts.
const A = '123456782';
const B = '111222333';
let t: TestApp;
let sl: Referentielijsten;

const as = (tok: string): TestApp => asHolder(t, tok);
const tok = adminOf;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  for (const rsin of [A, B]) await organisation(t, rsin);
});
afterAll(async () => {
  await t?.close();
  await sl?.close();
});

it("reads a batch that holds two tenants' keys per tenant: each read gets its own tenant's objects", async () => {
  const coll = t.deps.db.collection<{ _id: string; zaaktype: string; _created: Date }>('statustypen');
  const target = { store: { raw: coll }, url: (id: string) => `${t.config.PUBLIC_BASE_URL}/statustypen/${id}` } as unknown as Resource<CatalogiDoc>;
  const ids: Record<string, string> = { [A]: randomUUID(), [B]: randomUUID() };
  for (const rsin of [A, B]) await inTenant(rsin, () => coll.insertOne({ _id: ids[rsin]!, zaaktype: `zt-${rsin}`, _created: new Date() }));
  const loader = new GroupLoader(target, 'zaaktype');
  // asked in the same tick, by requests of A and of B
  const [a, b] = await Promise.all([inTenant(A, () => loader.load(`zt-${A}`)), inTenant(B, () => loader.load(`zt-${B}`))]);
  expect(a.map((d) => d._id)).toEqual([ids[A]]);
  expect(b.map((d) => d._id)).toEqual([ids[B]]);
  // a key of the other tenant finds nothing, also in one batch with that tenant's own read
  const [crossA, ownB] = await Promise.all([inTenant(A, () => loader.load(`zt-${B}`)), inTenant(B, () => loader.load(`zt-${B}`))]);
  expect(crossA).toEqual([]);
  expect(ownB.map((d) => d._id)).toEqual([ids[B]]);
});

it("shows each organisation's zaaktypen with their own parts when both read at the same time", async () => {
  const setups: Record<string, ZaakSetup> = { [A]: await zaaktypeMetOnderdelen(as(tok(A)), sl), [B]: await zaaktypeMetOnderdelen(as(tok(B)), sl) };
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all(
      [A, B, A, B].map((rsin) => t.call('GET', setups[rsin]!.zaaktype, undefined, { token: tok(rsin) }).then((res) => ({ rsin, res }))),
    );
    for (const { rsin, res } of answers) {
      expect(res.statusCode).toBe(200);
      expect(res.json().statustypen).toHaveLength(2);
      expect(res.json().roltypen.length).toBeGreaterThan(0);
      expect(res.json().statustypen).toContain(setups[rsin]!.statustypen.begin);
    }
  }
});
