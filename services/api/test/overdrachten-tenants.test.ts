import type { ChildProcess } from 'node:child_process';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, token, type TestApp } from './harness';
import { LogLines, OVERDRACHTEN, afgelopen, startListeningApp, startWorker, stopWorker, typen, type Typen } from './overdrachten.fixtures';
import { CRS, ZRC, createZ } from './zaken.fixtures';

/**
 * A transfer between two tenants of one platform (ZSDMS's internal route to another organisation): the workflow reads
 * as the source tenant and writes as the target tenant, and each side sees only its own half.
 */
const B = '123456782';
const logs = new LogLines();
let t: TestApp;
let b: TestApp;
let sl: Referentielijsten;
let bron: Typen;
let doel: Typen;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, logs);
  expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: B, naam: 'Gemeente B' })).statusCode).toBe(201);
  expect((await t.call('POST', '/admin/api/v1/credentials', { identifier: 'beheer-b', secret: 'beheer-b-secret', tenant: B })).statusCode).toBe(201);
  await ensureAllRights(t.deps.db, 'beheer-b', B);
  b = {
    ...t,
    call: (m, u, body, o = {}) => t.call(m, u, body, { ...o, token: o.token === undefined ? token('beheer-b', 'beheer-b-secret') : o.token }),
  };
  bron = await typen(t, sl, '000000000', 'BRON-1');
  doel = await typen(b, sl, B, 'DOEL-1');
  // B takes transfers from the source tenant (its own setting), so the source may name it as target
  expect((await b.call('PUT', '/admin/api/v1/overdrachten/instellingen', { accepteertVan: ['000000000'] })).statusCode).toBe(200);
  const reg = await t.call('POST', '/admin/api/v1/doelregistraties', {
    naam: 'naar-b',
    route: 'intern',
    rsin: B,
    tenant: B,
    catalogus: doel.catalogus,
    zaaktypen: [{ bron: 'BRON-1', doel: 'DOEL-1' }],
    bron: 'openlaten',
  });
  expect(reg.statusCode).toBe(201);
  worker = startWorker(t, logs);
}, 120_000);

afterAll(async () => {
  await stopWorker(worker);
  await t?.close();
  await sl?.close();
});

it('refuses an internal route to a tenant that does not exist', async () => {
  const res = await t.call('POST', '/admin/api/v1/doelregistraties', {
    naam: 'nergens',
    route: 'intern',
    rsin: '100000009',
    tenant: '100000009',
    catalogus: doel.catalogus,
    zaaktypen: [{ bron: 'BRON-1', doel: 'DOEL-1' }],
    bron: 'openlaten',
  });
  expect(res.statusCode).toBe(400);
});

it('copies the zaak into the other tenant, where only that tenant sees it, and the source sees only its own half', async () => {
  const zaak = await createZ(t, 'zaken', {
    bronorganisatie: '000000000',
    verantwoordelijkeOrganisatie: '000000000',
    zaaktype: bron.zaaktype,
    startdatum: '2024-03-01',
    omschrijving: 'Verhuisd',
  });
  await createZ(t, 'statussen', { zaak: zaak.url, statustype: bron.statustypen.begin, datumStatusGezet: '2024-03-01T10:00:00Z' });
  const res = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'naar-b', toelichting: 'fusie' });
  expect(res.statusCode).toBe(201);
  const url = res.json().url as string;
  let o: Record<string, any> = {};
  expect(await eventually(async () => afgelopen((o = (await t.call('GET', url)).json())), 90_000)).toBe(true);
  expect(o.status).toBe('afgerond');
  // the copy is B's: B lists it, with the overdracht's kenmerk; the source tenant does not see it
  const copies = (await b.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS })).json().results as Record<string, any>[];
  expect(copies).toHaveLength(1);
  const copy = copies[0]!;
  expect(copy.zaaktype).toBe(doel.zaaktype);
  expect(copy.bronorganisatie).toBe(B);
  expect(copy.relevanteAndereZaken).toEqual([]);
  expect((await t.call('GET', copy.url, undefined, { headers: CRS })).statusCode).toBe(404);
  // the source stays the source tenant's, naming nothing of B's; B cannot read it, nor the overdracht
  const source = (await t.call('GET', zaak.url, undefined, { headers: CRS })).json();
  expect(source.relevanteAndereZaken).toEqual([]);
  expect((await b.call('GET', zaak.url, undefined, { headers: CRS })).statusCode).toBe(404);
  expect((await b.call('GET', url)).statusCode).toBe(404);
  expect((await t.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS })).json().count).toBe(1);
});
