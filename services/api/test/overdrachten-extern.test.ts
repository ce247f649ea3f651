import type { ChildProcess } from 'node:child_process';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, type TestApp } from './harness';
import { CRS, ZRC, createZ } from './zaken.fixtures';
import { EIO } from './documenten.fixtures';
import { LogLines, OVERDRACHTEN, afgelopen, apisOf, startListeningApp, startWorker, stopWorker, typen, type Typen } from './overdrachten.fixtures';

/**
 * The external route against a real ZGW system: a second instance of this platform with its own database, topics,
 * task queue and credentials, over HTTP. Outgoing (A hands a zaak to B) and incoming (A takes over a zaak of B on
 * B's request), each ending with the copy in the other system, the source linked to it, every line traced.
 */
const logs = new LogLines();
let a: TestApp;
let b: TestApp;
let sl: Referentielijsten;
let typenA: Typen;
let typenB: Typen;
let workerA: ChildProcess | undefined;

beforeAll(async () => {
  sl = await startReferentielijsten();
  a = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, logs);
  b = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, new LogLines());
  typenA = await typen(a, sl, '000000000', 'ZT-A');
  typenB = await typen(b, sl, '222222222', 'ZT-B');
  // Each system knows the other as a client with its own secret, and registers it as an external system.
  await b.client('platform-a', 'secret-of-a-at-b');
  await ensureAllRights(b.mongo.db, 'platform-a', b.config.ZGW_DEFAULT_TENANT);
  await a.client('platform-b', 'secret-of-b-at-a');
  await ensureAllRights(a.mongo.db, 'platform-b', a.config.ZGW_DEFAULT_TENANT);
  const regA = await a.call('POST', '/admin/api/v1/doelregistraties', {
    naam: 'gemeente-b',
    route: 'extern',
    rsin: '222222222',
    catalogus: typenB.catalogus,
    bron: 'afsluiten',
    zaaktypen: [
      { bron: 'ZT-A', doel: 'ZT-B', afsluitResultaat: 'Afgehandeld' },
      { bron: 'ZT-B', doel: 'ZT-A', afsluitResultaat: 'Afgehandeld' },
    ],
    ...apisOf(b),
    clientId: 'platform-a',
    secret: 'secret-of-a-at-b',
  });
  expect(regA.statusCode).toBe(201);
  const regB = await b.call('POST', '/admin/api/v1/doelregistraties', {
    naam: 'gemeente-a',
    route: 'extern',
    rsin: '000000000',
    catalogus: typenA.catalogus,
    bron: 'openlaten',
    zaaktypen: [{ bron: 'ZT-B', doel: 'ZT-A' }],
    ...apisOf(a),
    clientId: 'platform-b',
    secret: 'secret-of-b-at-a',
  });
  expect(regB.statusCode).toBe(201);
  workerA = startWorker(a, logs);
}, 120_000);
afterAll(async () => {
  await stopWorker(workerA);
  await a?.close();
  await b?.close();
  await sl?.close();
});

async function zaakMetDocument(t: TestApp, s: Typen, rsin: string): Promise<Record<string, any>> {
  const zaak = await createZ(t, 'zaken', {
    bronorganisatie: rsin,
    verantwoordelijkeOrganisatie: rsin,
    zaaktype: s.zaaktype,
    startdatum: '2024-05-01',
    omschrijving: 'extern',
  });
  await createZ(t, 'rollen', {
    zaak: zaak.url,
    roltype: s.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'melder',
    betrokkeneIdentificatie: { inpBsn: '123456782' },
  });
  await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-05-01T08:00:00Z' });
  const doc = await t.call('POST', EIO, {
    bronorganisatie: rsin,
    creatiedatum: '2024-05-01',
    titel: 'brief',
    auteur: 'A',
    taal: 'dut',
    indicatieGebruiksrecht: false,
    inhoud: Buffer.from('inhoud van de brief').toString('base64'),
    informatieobjecttype: s.iot,
  });
  expect(doc.statusCode).toBe(201);
  await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: doc.json().url });
  return (await t.call('GET', zaak.url, undefined, { headers: CRS })).json();
}

async function klaar(url: string): Promise<Record<string, any>> {
  let last: Record<string, any> = {};
  const done = (o: Record<string, any>) => afgelopen(o, ['afgerond', 'mislukt', 'geweigerd']);
  if (!(await eventually(async () => done((last = (await a.call('GET', url)).json())), 90_000))) throw new Error(`overdracht bleef ${last.status}`);
  return last;
}

test('outgoing: the zaak, its rol, status and document land in the other system, which holds the copy; the source links to it and is closed', async () => {
  const zaak = await zaakMetDocument(a, typenA, '000000000');
  const o = (await a.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'gemeente-b' })).json();
  expect(o.richting).toBe('uit');
  const done = await klaar(o.url);
  expect(done).toMatchObject({ status: 'afgerond', fout: '' });
  expect(done.doelZaak.startsWith(b.config.PUBLIC_BASE_URL)).toBe(true);
  const copy = (await b.call('GET', done.doelZaak, undefined, { headers: CRS })).json();
  expect(copy).toMatchObject({ zaaktype: typenB.zaaktype, bronorganisatie: '222222222' });
  expect(copy.relevanteAndereZaken).toEqual([{ url: zaak.url, aardRelatie: 'vervolg' }]);
  const rollen = (await b.call('GET', `${ZRC}/rollen?zaak=${encodeURIComponent(copy.url)}`)).json().results;
  expect(rollen.map((r: any) => r.betrokkeneIdentificatie.inpBsn)).toEqual(['123456782']);
  const zios = (await b.call('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(copy.url)}`)).json();
  expect((await b.call('GET', `${zios[0].informatieobject}/download`)).body).toBe('inhoud van de brief');
  const source = (await a.call('GET', zaak.url, undefined, { headers: CRS })).json();
  expect(source.relevanteAndereZaken).toEqual([{ url: copy.url, aardRelatie: 'bijdrage' }]);
  expect(source.einddatum).not.toBeNull();
  expect(logs.of(zaak.identificatie).map((l) => l.msg)).toEqual(
    expect.arrayContaining(['overdracht ontvangen', 'overdracht: stap doelzaak_aangemaakt afgerond', 'overdracht: stap antwoord_verstuurd afgerond']),
  );
}, 150_000);

test("incoming: the other system asks this platform to take over its zaak; the copy is made here in the mapped zaaktype, the sender's zaak names it", async () => {
  const zaak = await zaakMetDocument(b, typenB, '222222222');
  const res = await a.call('POST', '/overdrachten/api/v1/verzoeken', { bronZaak: zaak.url, bronSysteem: 'gemeente-b' });
  expect([res.statusCode, res.statusCode === 201 ? '' : res.body]).toEqual([201, '']);
  const o = res.json();
  expect(o).toMatchObject({ richting: 'in', zaakIdentificatie: zaak.identificatie, zaak: zaak.url });
  const done = await klaar(o.url);
  expect(done).toMatchObject({ status: 'afgerond', fout: '' });
  const copy = (await a.call('GET', done.doelZaak, undefined, { headers: CRS })).json();
  expect(copy).toMatchObject({ zaaktype: typenA.zaaktype, bronorganisatie: '000000000' });
  expect(copy.relevanteAndereZaken).toEqual([{ url: zaak.url, aardRelatie: 'vervolg' }]);
  const zios = (await a.call('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(copy.url)}`)).json();
  expect((await a.call('GET', `${zios[0].informatieobject}/download`)).body).toBe('inhoud van de brief');
  const source = (await b.call('GET', zaak.url, undefined, { headers: CRS })).json();
  expect(source.relevanteAndereZaken).toEqual([{ url: copy.url, aardRelatie: 'bijdrage' }]);
  expect(logs.of(zaak.identificatie).map((l) => l.msg)).toEqual(
    expect.arrayContaining(['overdracht ontvangen', 'overdracht: stap geverifieerd afgerond']),
  );
}, 150_000);

test('incoming from an unknown system is a 400; a zaak the sender cannot show is refused as bron_onleesbaar', async () => {
  const onbekend = await a.call('POST', '/overdrachten/api/v1/verzoeken', {
    bronZaak: `${b.config.PUBLIC_BASE_URL}/zaken/api/v1/zaken/00000000-0000-4000-8000-000000000000`,
    bronSysteem: 'nergens',
  });
  expect(onbekend.statusCode).toBe(400);
  expect(onbekend.json().invalidParams[0]).toMatchObject({ name: 'bronSysteem', code: 'does_not_exist' });
  const missing = `${b.config.PUBLIC_BASE_URL}/zaken/api/v1/zaken/00000000-0000-4000-8000-000000000000`;
  const o = (await a.call('POST', '/overdrachten/api/v1/verzoeken', { bronZaak: missing, bronSysteem: 'gemeente-b' })).json();
  expect(o.zaakIdentificatie).toBe(missing);
  const done = await klaar(o.url);
  expect(done).toMatchObject({ status: 'geweigerd', weigering: { code: 'bron_onleesbaar' } });
  expect(logs.of(missing).find((l) => l.weigering === 'bron_onleesbaar')).toMatchObject({ level: 'info', overdracht: o.uuid });
}, 120_000);
