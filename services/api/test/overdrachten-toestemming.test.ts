import type { ChildProcess } from 'node:child_process';
import { AdminUsers } from '../src/admin/ui/users';
import { ensureAllRights } from '../src/bootstrap';
import { AdminBrowser, PASSWORD } from './admin-ui.helpers';
import { create, startReferentielijsten, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';
import { eventually, token, type TestApp } from './harness';
import { LogLines, OVERDRACHTEN, afgelopen, startListeningApp, startWorker, stopWorker, typen, type Typen } from './overdrachten.fixtures';
import { CRS, ZRC, createZ } from './zaken.fixtures';

/**
 * Transfers between two organisations (tenants) of one platform, tried as the other organisation's administrator
 * would: B takes transfers from A only once B says so (its own setting), refused alike whether B exists or not;
 * a refusal B's data decides tells A nothing of B's zaaktypen; and a transfer finds its doelregistratie by its id
 * within A, never by a name that B made again after A deleted it.
 */
const A = '000000000'; // the default tenant: the test's all-rights client is its administrator
const B = '123456782';
const DOELREGISTRATIES = '/admin/api/v1/doelregistraties';
const INSTELLINGEN = '/admin/api/v1/overdrachten/instellingen';
const logs = new LogLines();
let t: TestApp;
let b: TestApp;
let sl: Referentielijsten;
let bron: Typen;
let doel: Typen;
let worker: ChildProcess | undefined;

/** A problem as the caller sees it, without what differs on every answer (`instance`). */
const problem = (res: { json(): Record<string, unknown> }) => {
  const { instance: _instance, ...rest } = res.json();
  return rest;
};

const naarB = () => ({
  naam: 'naar-b',
  route: 'intern',
  rsin: B,
  tenant: B,
  catalogus: doel.catalogus,
  zaaktypen: [{ bron: 'BRON-1', doel: 'DOEL-1' }],
  bron: 'openlaten',
});

const nieuweZaak = (startdatum = '2024-03-01') =>
  createZ(t, 'zaken', { bronorganisatie: A, verantwoordelijkeOrganisatie: A, zaaktype: bron.zaaktype, startdatum });

const einde = async (url: string): Promise<Record<string, any>> => {
  let o: Record<string, any> = {};
  expect(await eventually(async () => afgelopen((o = (await t.call('GET', url)).json())), 90_000)).toBe(true);
  return o;
};

const zakenVanB = async () => (await b.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS })).json().count as number;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url, TRANSFER_ATTEMPTS: '2' }, logs);
  expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: B, naam: 'Gemeente B' })).statusCode).toBe(201);
  expect((await t.call('POST', '/admin/api/v1/credentials', { identifier: 'beheer-b', secret: 'beheer-b-secret', tenant: B })).statusCode).toBe(201);
  await ensureAllRights(t.deps.db, 'beheer-b', B);
  b = {
    ...t,
    call: (m, u, body, o = {}) => t.call(m, u, body, { ...o, token: o.token === undefined ? token('beheer-b', 'beheer-b-secret') : o.token }),
  };
  bron = await typen(t, sl, A, 'BRON-1');
  doel = await typen(b, sl, B, 'DOEL-1');
}, 120_000);

afterAll(async () => {
  await stopWorker(worker);
  await t?.close();
  await sl?.close();
});

test('an organisation is named as target only once it takes transfers from the sender; refused alike whether it exists or not', async () => {
  const nergens = await t.call('POST', DOELREGISTRATIES, { ...naarB(), naam: 'naar-nergens', rsin: '100000009', tenant: '100000009' });
  const zonderToestemming = await t.call('POST', DOELREGISTRATIES, naarB());
  expect(zonderToestemming.statusCode).toBe(400);
  expect(problem(zonderToestemming)).toEqual(problem(nergens));
  expect(zonderToestemming.json().invalidParams).toEqual([expect.objectContaining({ name: 'tenant', code: 'not_accepted' })]);
  // its own organisation needs no consent
  expect((await t.call('POST', DOELREGISTRATIES, { ...naarB(), naam: 'binnen-a', rsin: A, tenant: A, catalogus: bron.catalogus })).statusCode).toBe(
    201,
  );

  // B's setting is B's: its administrator names A; A's own setting stays A's
  expect((await b.call('GET', INSTELLINGEN)).json()).toEqual({ accepteertVan: [] });
  const gezet = await b.call('PUT', INSTELLINGEN, { accepteertVan: [A, A] });
  expect(gezet.statusCode).toBe(200);
  expect(gezet.json()).toEqual({ accepteertVan: [A] });
  expect((await b.call('GET', INSTELLINGEN)).json()).toEqual({ accepteertVan: [A] });
  expect((await t.call('GET', INSTELLINGEN)).json()).toEqual({ accepteertVan: [] });
  const aangemaakt = await t.call('POST', DOELREGISTRATIES, naarB());
  expect(aangemaakt.statusCode).toBe(201);

  // bad input: a 400 in the ZGW problem format, naming the field; only administrators
  for (const body of [{ accepteertVan: ['12'] }, { accepteertVan: ['123456789'] }, { accepteertVan: 'x' }, {}, { accepteertVan: [], ander: 1 }]) {
    const res = await b.call('PUT', INSTELLINGEN, body);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.json().invalidParams.length).toBeGreaterThan(0);
  }
  expect((await b.call('PUT', INSTELLINGEN, '[1]')).statusCode).toBe(400);
  await t.client('zonder-rechten', 'zonder-rechten-geheim');
  expect((await t.call('PUT', INSTELLINGEN, { accepteertVan: [] }, { token: token('zonder-rechten', 'zonder-rechten-geheim') })).statusCode).toBe(
    403,
  );
  expect((await t.call('GET', INSTELLINGEN, undefined, { token: null })).statusCode).toBe(401);
  expect((await b.call('GET', INSTELLINGEN)).json()).toEqual({ accepteertVan: [A] });
});

test('a transfer to an organisation that no longer takes transfers from the sender is refused at once, nothing stored', async () => {
  const zaak = await nieuweZaak();
  expect((await b.call('PUT', INSTELLINGEN, { accepteertVan: [] })).statusCode).toBe(200);
  const res = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'naar-b' });
  expect(res.statusCode).toBe(400);
  expect(res.json().invalidParams).toEqual([expect.objectContaining({ name: 'doelregistratie', code: 'not_accepted' })]);
  expect((await t.call('GET', `${OVERDRACHTEN}?zaak=${encodeURIComponent(zaak.url)}`)).json().count).toBe(0);
  expect((await b.call('PUT', INSTELLINGEN, { accepteertVan: [A] })).statusCode).toBe(200);
});

test('a transfer finds its doelregistratie by id within its own organisation: never by a name another one made again', async () => {
  // A's own route (the copy stays in A); a transfer asked for while no worker runs yet
  const gedeeld = {
    naam: 'gedeeld',
    route: 'intern',
    rsin: A,
    catalogus: bron.catalogus,
    zaaktypen: [{ bron: 'BRON-1', doel: 'BRON-1' }],
    bron: 'openlaten',
  };
  expect((await t.call('POST', DOELREGISTRATIES, gedeeld)).statusCode).toBe(201);
  const zaak = await nieuweZaak();
  const res = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'gedeeld' });
  expect(res.statusCode).toBe(201);
  // A deletes its route; B makes one of the same name, to itself
  expect((await t.call('DELETE', `${DOELREGISTRATIES}/gedeeld`)).statusCode).toBe(204);
  const vanB = { ...naarB(), naam: 'gedeeld' };
  expect((await b.call('POST', DOELREGISTRATIES, vanB)).statusCode).toBe(201);
  worker = startWorker(t, logs);
  const o = await einde(res.json().url);
  expect(o.status).toBe('mislukt');
  expect(o.fout).toMatch(/doelregistratie gedeeld bestaat niet/);
  expect(o.doelZaak).toBeNull();
  expect(await zakenVanB()).toBe(0);
}, 150_000);

test("a refusal decided by the target's data names none of its zaaktypen to the sender; the detail stays apart", async () => {
  worker ??= startWorker(t, logs);
  // a zaaktype of B's that is not published, and one that is not valid on the zaak's startdatum
  await create(b, 'zaaktypen', zaaktypeBody(doel.catalogus, { identificatie: 'DOEL-CONCEPT', selectielijstProcestype: sl.procestype }));
  const concept = { ...naarB(), naam: 'naar-b-concept', zaaktypen: [{ bron: 'BRON-1', doel: 'DOEL-CONCEPT' }] };
  expect((await t.call('POST', DOELREGISTRATIES, concept)).statusCode).toBe(201);
  const redenen: string[] = [];
  for (const [zaak, doelregistratie, detail] of [
    [await nieuweZaak(), 'naar-b-concept', /DOEL-CONCEPT/],
    [await nieuweZaak('2019-06-01'), 'naar-b', /DOEL-1.*2019-06-01/],
  ] as const) {
    const res = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie });
    expect(res.statusCode).toBe(201);
    const o = await einde(res.json().url);
    expect(o).toMatchObject({ status: 'geweigerd', doelZaak: null, weigering: { code: 'doelzaaktype_ongeldig' } });
    expect(o.weigering.reden).not.toMatch(/DOEL|2019|zaaktype "/);
    redenen.push(o.weigering.reden);
    // the transfer's lines carry what the sender heard; the detail stays in the worker's log, apart
    const regels = logs.of(zaak.identificatie);
    expect(regels.filter((l) => l.weigering).map((l) => l.reden)).toEqual([o.weigering.reden]);
    expect(regels.find((l) => l.doelWeigering)).toMatchObject({
      doelregistratie,
      doelWeigering: 'doelzaaktype_ongeldig',
      doelReden: expect.stringMatching(detail),
    });
  }
  // the two refusals read alike: the sender cannot tell them apart
  expect(redenen[0]).toBe(redenen[1]);
  expect(await zakenVanB()).toBe(0);
}, 240_000);

test('a transfer that the target stopped taking between request and start is refused by the workflow', async () => {
  worker ??= startWorker(t, logs);
  const zaak = await nieuweZaak();
  await stopWorker(worker);
  const res = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'naar-b' });
  expect(res.statusCode).toBe(201);
  expect((await b.call('PUT', INSTELLINGEN, { accepteertVan: [] })).statusCode).toBe(200);
  worker = startWorker(t, logs);
  const o = await einde(res.json().url);
  expect(o).toMatchObject({ status: 'geweigerd', doelZaak: null, weigering: { code: 'niet_geaccepteerd' } });
  expect(await zakenVanB()).toBe(0);
}, 150_000);

test('with consent the transfer goes through into the other organisation', async () => {
  worker ??= startWorker(t, logs);
  expect((await b.call('PUT', INSTELLINGEN, { accepteertVan: [A] })).statusCode).toBe(200);
  const zaak = await nieuweZaak();
  const res = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'naar-b' });
  expect(res.statusCode).toBe(201);
  const o = await einde(res.json().url);
  expect(o.status).toBe('afgerond');
  expect(await zakenVanB()).toBe(1);
}, 150_000);

test("on B's admin screen: the organisations it takes transfers from, shown and changed", async () => {
  await new AdminUsers(t.mongo.db).create('scherm-b', PASSWORD, B);
  const scherm = new AdminBrowser(t);
  expect((await scherm.login('scherm-b', PASSWORD)).statusCode).toBe(303);
  const page = await scherm.get('/admin/overdrachten');
  expect(page.statusCode).toBe(200);
  expect(page.body).toMatch(new RegExp(`<textarea id="accepteertVan" name="accepteertVan"[^>]*>${A}</textarea>`));
  const saved = await scherm.post('/admin/overdrachten/instellingen', { accepteertVan: `${A}\r\n111222333\r\n` });
  expect(saved.statusCode).toBe(303);
  expect((await b.call('GET', INSTELLINGEN)).json()).toEqual({ accepteertVan: [A, '111222333'] });
  expect((await scherm.get(saved.headers.location as string)).body).toContain('Opgeslagen: van welke organisaties');
  const refused = await scherm.post('/admin/overdrachten/instellingen', { accepteertVan: 'twaalf' });
  expect(refused.statusCode).toBe(400);
  expect(refused.body).toContain('elfproef');
  // without the session's CSRF token nothing changes
  expect((await scherm.post('/admin/overdrachten/instellingen', { _csrf: null, accepteertVan: '' })).statusCode).toBe(403);
  expect((await b.call('GET', INSTELLINGEN)).json()).toEqual({ accepteertVan: [A, '111222333'] });
  // A's own setting stays A's
  expect((await t.call('GET', INSTELLINGEN)).json()).toEqual({ accepteertVan: [] });
});
