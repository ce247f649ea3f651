import { isTenantCollection, platformDb, TENANT_FIELD } from '@zgw/shared';
import { ensureAllRights } from '../src/bootstrap';
import { Credentials } from '../src/common/auth/credentials';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { createEio, eioBody, informatieobjecttype } from './documenten.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';

/**
 * An installation from before tenants: its objects without `_tenant`, its unique indexes across the installation,
 * its maintained counts without a tenant. The next start makes it the default tenant's, nothing lost.
 */
let sl: Referentielijsten;
let before: TestApp;
let after: TestApp;
let zaak: Record<string, any>;
let document: Record<string, any>;
let zaaktype: string;

/** Rewinds the store to how the build before tenants left it. */
async function asBeforeTenants(t: TestApp): Promise<void> {
  const db = platformDb(t.mongo.db);
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (!isTenantCollection(name)) continue;
    const coll = db.collection(name);
    if (name.endsWith('_counts')) {
      for (const b of await coll.find({}).toArray()) {
        const values = (b.values as unknown[]).slice(1);
        await coll.deleteOne({ _id: b._id });
        await coll.insertOne({ _id: JSON.stringify(values) as never, values, n: b.n });
      }
      continue;
    }
    await coll.updateMany({}, { $unset: { [TENANT_FIELD]: '' } });
    for (const ix of await coll.indexes()) {
      const keys = Object.keys(ix.key);
      if (keys[0] !== TENANT_FIELD) continue;
      await coll.dropIndex(ix.name!);
      const old = Object.fromEntries(keys.slice(1).map((k) => [k, ix.key[k]]));
      const fields = Object.keys(old);
      // what the earlier build declared: a sparse unique index where the tenant's is partial
      if (ix.unique && ix.partialFilterExpression && fields.every((f) => f in ix.partialFilterExpression!))
        await coll.createIndex(old, { unique: true, sparse: true });
      else
        await coll.createIndex(old, {
          unique: ix.unique,
          ...(ix.partialFilterExpression ? { partialFilterExpression: ix.partialFilterExpression } : {}),
        });
    }
  }
  await db.collection('migrations').deleteOne({ _id: 'tenants' as never });
}

beforeAll(async () => {
  sl = await startReferentielijsten();
  before = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  zaaktype = (await zaaktypeMetOnderdelen(before, sl)).zaaktype;
  zaak = await createZ(before, 'zaken', zaakBody(zaaktype, { identificatie: 'OUD-1' }));
  document = await createEio(before, eioBody(await informatieobjecttype(before), { identificatie: 'OUD-DOC' }));
  await asBeforeTenants(before);
  // the next start of the new build, on the same store
  after = await startApp({ REFERENTIELIJSTEN_URL: sl.url }, { shareWith: before });
}, 120_000);

afterAll(async () => {
  await after?.close();
  await before?.close();
  await sl?.close();
});

describe('an installation upgraded to tenants', () => {
  it('serves everything it held as the default tenant, its lists counted as before', async () => {
    expect((await after.call('GET', zaak.url, undefined, { headers: CRS })).json().identificatie).toBe('OUD-1');
    expect((await after.call('GET', document.url)).json().identificatie).toBe('OUD-DOC');
    expect((await after.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS })).json().count).toBe(1);
    const raw = platformDb(after.mongo.db);
    expect(await raw.collection('zaken').countDocuments({ [TENANT_FIELD]: { $exists: false } })).toBe(0);
    expect(await raw.collection('zaken').countDocuments({ [TENANT_FIELD]: after.config.ZGW_DEFAULT_TENANT })).toBe(1);
  });

  it('replaces the indexes from before by tenant-led ones, so uniqueness holds within a tenant', async () => {
    const keys = (await platformDb(after.mongo.db).collection('zaken').indexes()).map((i) => Object.keys(i.key));
    expect(keys).toContainEqual([TENANT_FIELD, 'bronorganisatie', 'identificatie']);
    expect(keys).not.toContainEqual(['bronorganisatie', 'identificatie']);
    // the same identificatie again in the default tenant: refused
    expect((await after.call('POST', `${ZRC}/zaken`, zaakBody(zaaktype, { identificatie: 'OUD-1' }), { headers: CRS })).statusCode).toBe(400);
    // in another tenant, with a zaaktype of its own: taken
    expect((await after.call('POST', '/admin/api/v1/tenants', { rsin: '123456782', naam: 'Nieuw' })).statusCode).toBe(201);
    await new Credentials(after.mongo.db, after.deps.pii, after.deps.tenants.defaultTenant).set('nieuw', '123456782', 'nieuw-secret');
    await ensureAllRights(after.deps.db, 'nieuw', '123456782');
    const nieuw: TestApp = { ...after, call: (m, u, b, o = {}) => after.call(m, u, b, { ...o, token: token('nieuw', 'nieuw-secret') }) };
    const own = await zaaktypeMetOnderdelen(nieuw, sl);
    expect((await nieuw.call('POST', `${ZRC}/zaken`, zaakBody(own.zaaktype, { identificatie: 'OUD-1' }), { headers: CRS })).statusCode).toBe(201);
    // and the default tenant still sees only its own
    expect((await after.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS })).json().count).toBe(1);
  });
});
