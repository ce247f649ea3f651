import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { organisation } from './tenants.fixtures';
import { CRS } from './zaken.fixtures';
import { INSTELLINGEN, LIJSTEN, opzet, uuidOf, zaak, type Opzet } from './vernietigingslijsten.fixtures';

// Destruction lists through the admin API: the settings, a list made from a selection (what it cannot take told with
// why) or by hand (a 400 with a reason per zaak), reviewed step by step (a change sends it back to the maker),
// approved once each zaak is checked again; another organisation's administrator sees none of it.

let t: TestApp;
let sl: Referentielijsten;
let s: Opzet;
const ANDER = '111222333';
let ander: string;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await opzet(t, sl);
  ander = await organisation(t, ANDER);
  await t.client('recordmanager', 'recordmanager-secret');
  const { ensureAllRights } = await import('../src/bootstrap');
  await ensureAllRights(t.deps.db, 'recordmanager', t.config.ZGW_DEFAULT_TENANT);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await sl?.close();
});

jest.setTimeout(120_000);

const call = (method: string, url: string, body?: unknown, tok?: string) =>
  t.call(method, url, body, { headers: CRS, ...(tok ? { token: tok } : {}) });
const recordmanager = () => token('recordmanager', 'recordmanager-secret');
const params = (res: { json(): any }) => (res.json().invalidParams ?? []) as { name: string; code: string; reason: string }[];
const items = async (lijst: string, status?: string) =>
  (await call('GET', `${LIJSTEN}/${lijst}/zaken${status ? `?status=${status}` : ''}`)).json().results as Record<string, any>[];

describe('settings', () => {
  it('one step by default; steps and the verklaring zaak are checked and stored per organisation', async () => {
    expect((await call('GET', INSTELLINGEN)).json()).toEqual({
      stappen: [{ naam: 'archivaris', beoordelaars: [] }],
      verklaringZaak: null,
      verklaringInformatieobjecttype: null,
    });
    // a zaak whose zaaktype has a resultaattype vernietigen cannot keep the verklaringen
    const gewoon = await zaak(t, s, { open: true });
    const fout = await call('PUT', INSTELLINGEN, {
      stappen: [{ naam: 'archivaris' }],
      verklaringZaak: gewoon.url,
      verklaringInformatieobjecttype: s.iot,
    });
    expect(fout.statusCode).toBe(400);
    expect(params(fout)).toEqual([expect.objectContaining({ name: 'verklaringZaak', code: 'geen-blijvend-bewaren' })]);
    const dubbel = await call('PUT', INSTELLINGEN, { stappen: [{ naam: 'a' }, { naam: 'a' }] });
    expect(dubbel.statusCode).toBe(400);
    const goed = await call('PUT', INSTELLINGEN, {
      stappen: [{ naam: 'recordmanager', beoordelaars: ['recordmanager'] }, { naam: 'archivaris' }],
      verklaringZaak: s.verklaringZaak,
      verklaringInformatieobjecttype: s.iot,
    });
    expect(goed.statusCode).toBe(200);
    expect(goed.json().stappen.map((x: { naam: string }) => x.naam)).toEqual(['recordmanager', 'archivaris']);
    // the other organisation has its own (the default), and cannot name our zaak
    expect((await call('GET', INSTELLINGEN, undefined, ander)).json().stappen).toEqual([{ naam: 'archivaris', beoordelaars: [] }]);
    const vreemd = await call(
      'PUT',
      INSTELLINGEN,
      { stappen: [{ naam: 'x' }], verklaringZaak: s.verklaringZaak, verklaringInformatieobjecttype: s.iot },
      ander,
    );
    expect(params(vreemd)).toEqual([expect.objectContaining({ name: 'verklaringZaak', code: 'does_not_exist' })]);
  });
});

describe('a list', () => {
  let z: Record<string, Record<string, any>>;
  let lijst: Record<string, any>;

  beforeAll(async () => {
    z = {
      eerste: await zaak(t, s),
      tweede: await zaak(t, s),
      open: await zaak(t, s, { open: true }),
      toekomst: await zaak(t, s, { dag: new Date().toISOString().slice(0, 10) }),
      bewaren: await zaak(t, s, { resultaattype: s.bewaren }),
      bewaard: await zaak(t, s),
      hoofd: await zaak(t, s),
      hoofdMetOpen: await zaak(t, s),
    };
    z.deel = await zaak(t, s, { hoofdzaak: z.hoofd!.url });
    z.openDeel = await zaak(t, s, { hoofdzaak: z.hoofdMetOpen!.url, open: true });
    expect((await call('PUT', `/admin/api/v1/zaken/${uuidOf(z.bewaard!.url)}/juridische-bewaring`, { reden: 'bezwaar loopt' })).statusCode).toBe(200);
  });

  it('is made from a selection: the closed zaken vernietigen whose date passed; what it cannot take is told with why', async () => {
    const leeg = await call('POST', LIJSTEN, { naam: 'leeg', selectie: { datum: '2000-01-01' } });
    expect(params(leeg)).toEqual([expect.objectContaining({ name: 'selectie', code: 'geen-zaken' })]);
    // another bronorganisatie's zaken: none of these
    const ander = await call('POST', LIJSTEN, { naam: 'elders', selectie: { datum: '2030-01-01', bronorganisatie: '999999990' } });
    expect(params(ander)).toEqual([expect.objectContaining({ name: 'selectie', code: 'geen-zaken' })]);
    const res = await call('POST', LIJSTEN, { naam: 'Vergunningen 2020', selectie: { datum: '2030-01-01', zaaktype: s.zaaktype } });
    expect(res.statusCode).toBe(201);
    lijst = res.json();
    expect(lijst).toMatchObject({
      naam: 'Vergunningen 2020',
      status: 'nieuw',
      stappen: ['recordmanager', 'archivaris'],
      tellingen: { voorgesteld: 4 },
    });
    const opLijst = (await items(lijst.uuid)).map((i) => i.zaak).sort();
    expect(opLijst).toEqual([z.eerste!.url, z.tweede!.url, z.hoofd!.url, z.deel!.url].sort());
    expect(lijst.nietOpgenomen).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ zaak: z.bewaard!.url, reden: 'juridische-bewaring' }),
        expect.objectContaining({ zaak: z.hoofdMetOpen!.url, reden: 'deelzaak-niet-op-lijst' }),
      ]),
    );
    const eerste = (await items(lijst.uuid)).find((i) => i.zaak === z.eerste!.url)!;
    expect(eerste).toMatchObject({
      identificatie: z.eerste!.identificatie,
      zaaktypeOmschrijving: 'Vergunning',
      archiefnominatie: 'vernietigen',
      archiefactiedatum: '2021-02-01',
      resultaat: sl.resultaat.vast,
      procestermijn: 'vast_te_leggen_datum',
      status: 'voorgesteld',
    });
    expect((await items(lijst.uuid)).find((i) => i.zaak === z.deel!.url)).toMatchObject({ hoofdzaak: z.hoofd!.url });
  });

  it('refuses zaken named by hand with a reason for each', async () => {
    const res = await call('POST', LIJSTEN, {
      naam: 'met de hand',
      zaken: [
        z.eerste!.url,
        z.open!.url,
        z.toekomst!.url,
        z.bewaren!.url,
        z.bewaard!.url,
        z.hoofdMetOpen!.url,
        `${t.config.PUBLIC_BASE_URL}/zaken/api/v1/zaken/00000000-0000-4000-8000-000000000000`,
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(params(res).map((p) => [p.name, p.code])).toEqual([
      ['zaken.0', 'op-andere-lijst'],
      ['zaken.1', 'niet-afgesloten'],
      ['zaken.2', 'datum-in-toekomst'],
      ['zaken.3', 'blijvend-bewaren'],
      ['zaken.4', 'juridische-bewaring'],
      ['zaken.5', 'deelzaak-niet-op-lijst'],
      ['zaken.6', 'bestaat-niet'],
    ]);
    // nothing was made
    expect((await call('GET', LIJSTEN)).json().results.map((l: { naam: string }) => l.naam)).not.toContain('met de hand');
  });

  it('is not there for another organisation', async () => {
    for (const [method, path, body] of [
      ['GET', `${LIJSTEN}/${lijst.uuid}`],
      ['GET', `${LIJSTEN}/${lijst.uuid}/zaken`],
      ['POST', `${LIJSTEN}/${lijst.uuid}/indienen`],
      ['POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, {}],
      ['POST', `${LIJSTEN}/${lijst.uuid}/uitvoeren`],
      ['GET', `${LIJSTEN}/${lijst.uuid}/verklaring`],
      ['DELETE', `${LIJSTEN}/${lijst.uuid}`],
    ] as [string, string, unknown][]) {
      const res = await call(method, path, body, ander);
      expect([method, path, res.statusCode]).toEqual([method, path, 404]);
    }
    expect((await call('GET', LIJSTEN, undefined, ander)).json()).toMatchObject({ count: 0, results: [] });
    // nor can it put our zaken on a list of its own
    const theirs = await call('POST', LIJSTEN, { naam: 'de onze', zaken: [z.tweede!.url] }, ander);
    expect(params(theirs)).toEqual([expect.objectContaining({ name: 'zaken.0', code: 'bestaat-niet' })]);
  });

  it('is reviewed step by step: a change sends it back to the maker, with a new date for the zaak excluded', async () => {
    expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, {})).statusCode).toBe(409);
    expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/indienen`)).json()).toMatchObject({ status: 'ter_beoordeling', stap: 'recordmanager' });
    // the first step names its reviewer: another administrator may not
    const anders = await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, {});
    expect(anders.statusCode).toBe(403);
    // a deelzaak cannot go off the list alone (its hoofdzaak would take it along)
    const deel = await call(
      'POST',
      `${LIJSTEN}/${lijst.uuid}/beoordelingen`,
      { uitzonderingen: [{ zaak: z.deel!.url, reden: 'nog nodig' }] },
      recordmanager(),
    );
    expect(params(deel)).toEqual([expect.objectContaining({ name: 'uitzonderingen.0.zaak', code: 'deelzaak-niet-op-lijst' })]);
    const terug = await call(
      'POST',
      `${LIJSTEN}/${lijst.uuid}/beoordelingen`,
      { stap: 'recordmanager', uitzonderingen: [{ zaak: z.tweede!.url, reden: 'bezwaarprocedure verwacht', archiefactiedatum: '2031-01-01' }] },
      recordmanager(),
    );
    expect(terug.statusCode).toBe(200);
    expect(terug.json()).toMatchObject({ status: 'teruggestuurd', tellingen: { voorgesteld: 3, uitgezonderd: 1 } });
    expect(terug.json().beoordelingen).toEqual([
      expect.objectContaining({ stap: 'recordmanager', door: 'recordmanager', besluit: 'aangepast', uitgezonderd: 1 }),
    ]);
    expect((await items(lijst.uuid, 'uitgezonderd'))[0]).toMatchObject({
      zaak: z.tweede!.url,
      uitzondering: { reden: 'bezwaarprocedure verwacht', stap: 'recordmanager', archiefactiedatum: '2031-01-01' },
    });
    expect((await call('GET', z.tweede!.url)).json().archiefactiedatum).toBe('2031-01-01');
    // the excluded zaak is free again: another list may take it (once its date has passed)
    // back with the maker: submitted again, both steps approve
    expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/indienen`)).json()).toMatchObject({ status: 'ter_beoordeling', stap: 'recordmanager' });
    expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, {}, recordmanager())).json()).toMatchObject({ stap: 'archivaris' });
    const klaar = await call('POST', `${LIJSTEN}/${lijst.uuid}/beoordelingen`, { stap: 'archivaris' });
    expect(klaar.json()).toMatchObject({ status: 'goedgekeurd', stap: null });
    expect(klaar.json().beoordelingen.map((b: { stap: string; besluit: string }) => `${b.stap} ${b.besluit}`)).toEqual([
      'recordmanager aangepast',
      'recordmanager goedgekeurd',
      'archivaris goedgekeurd',
    ]);
    // an approved list is changed no more
    expect((await call('POST', `${LIJSTEN}/${lijst.uuid}/zaken`, { zaken: [z.eerste!.url] })).statusCode).toBe(409);
    expect((await call('DELETE', `${LIJSTEN}/${lijst.uuid}`)).statusCode).toBe(409);
  });

  it('is approved only when every zaak may still go: one put on hold since is a 400 naming it', async () => {
    const een = await zaak(t, s);
    const twee = await zaak(t, s);
    const l = (await call('POST', LIJSTEN, { naam: 'tweede', zaken: [een.url, twee.url] })).json();
    expect(l.status).toBe('nieuw');
    await call('POST', `${LIJSTEN}/${l.uuid}/indienen`);
    await call('POST', `${LIJSTEN}/${l.uuid}/beoordelingen`, {}, recordmanager());
    await call('PUT', `/admin/api/v1/zaken/${uuidOf(twee.url)}/juridische-bewaring`, { reden: 'rechtszaak' });
    const res = await call('POST', `${LIJSTEN}/${l.uuid}/beoordelingen`, {});
    expect(res.statusCode).toBe(400);
    expect(params(res)).toEqual([expect.objectContaining({ name: `zaken.${twee.identificatie}`, code: 'juridische-bewaring' })]);
    expect((await call('GET', `${LIJSTEN}/${l.uuid}`)).json().status).toBe('ter_beoordeling');
    // carried out only once approved; stopped only while carried out
    expect((await call('POST', `${LIJSTEN}/${l.uuid}/uitvoeren`)).statusCode).toBe(409);
    expect((await call('POST', `${LIJSTEN}/${l.uuid}/stoppen`)).statusCode).toBe(409);
    // the maker's list: one removed, the list removed (its zaken free again)
    const r = await call('POST', `${LIJSTEN}/${l.uuid}/beoordelingen`, { uitzonderingen: [{ zaak: twee.url, reden: 'rechtszaak' }] });
    expect(r.json().status).toBe('teruggestuurd');
    expect((await call('DELETE', `${LIJSTEN}/${l.uuid}/zaken/${uuidOf(een.url)}`)).statusCode).toBe(204);
    expect((await call('POST', `${LIJSTEN}/${l.uuid}/indienen`)).statusCode).toBe(400);
    expect((await call('POST', `${LIJSTEN}/${l.uuid}/zaken`, { zaken: [een.url] })).json().tellingen.voorgesteld).toBe(1);
    expect((await call('DELETE', `${LIJSTEN}/${l.uuid}`)).statusCode).toBe(204);
    expect((await call('GET', `${LIJSTEN}/${l.uuid}`)).statusCode).toBe(404);
    expect((await call('POST', LIJSTEN, { naam: 'opnieuw', zaken: [een.url] })).statusCode).toBe(201);
  });

  it('refuses bad input with a 400 (never a 500)', async () => {
    expect((await call('POST', LIJSTEN, { naam: 'x' })).statusCode).toBe(400);
    expect((await call('POST', LIJSTEN, { naam: 'x', selectie: { datum: 'gisteren' } })).statusCode).toBe(400);
    expect((await call('POST', LIJSTEN, { naam: 'x', zaken: ['geen url'] })).statusCode).toBe(400);
    expect((await call('GET', `${LIJSTEN}/niet-een-uuid`)).statusCode).toBe(404);
    expect((await call('GET', `${LIJSTEN}?status=weg`)).statusCode).toBe(400);
  });
});

describe('the admin API OpenAPI document', () => {
  it('holds every destruction-list operation with its request schema, served as JSON and YAML', async () => {
    const res = await t.call('GET', '/admin/api/v1/schema/openapi.json', undefined, { token: null });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { servers: { url: string }[]; paths: Record<string, Record<string, any>> };
    expect(doc.servers[0]!.url).toBe(`${t.config.PUBLIC_BASE_URL}/admin/api/v1`);
    const ops = Object.entries(doc.paths)
      .filter(([p]) => p.startsWith('/vernietigingslijsten'))
      .flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => `${m.toUpperCase()} ${p} ${op.operationId}`))
      .sort();
    expect(ops).toEqual(
      [
        'GET /vernietigingslijsten/instellingen vernietiginginstellingen_retrieve',
        'PUT /vernietigingslijsten/instellingen vernietiginginstellingen_update',
        'GET /vernietigingslijsten vernietigingslijst_list',
        'POST /vernietigingslijsten vernietigingslijst_create',
        'GET /vernietigingslijsten/{uuid} vernietigingslijst_retrieve',
        'DELETE /vernietigingslijsten/{uuid} vernietigingslijst_destroy',
        'GET /vernietigingslijsten/{uuid}/zaken vernietigingslijst_zaken_list',
        'POST /vernietigingslijsten/{uuid}/zaken vernietigingslijst_zaken_create',
        'DELETE /vernietigingslijsten/{uuid}/zaken/{zaak} vernietigingslijst_zaken_destroy',
        'POST /vernietigingslijsten/{uuid}/indienen vernietigingslijst_indienen',
        'POST /vernietigingslijsten/{uuid}/beoordelingen vernietigingslijst_beoordelen',
        'POST /vernietigingslijsten/{uuid}/uitvoeren vernietigingslijst_uitvoeren',
        'POST /vernietigingslijsten/{uuid}/stoppen vernietigingslijst_stoppen',
        'GET /vernietigingslijsten/{uuid}/verklaring vernietigingslijst_verklaring',
      ].sort(),
    );
    // each documented operation is a route of the app
    for (const op of ops) {
      const [method, path] = op.split(' ');
      expect([op, t.app.hasRoute({ method: method as 'GET', url: `/admin/api/v1${path!.replace(/\{(\w+)\}/g, ':$1')}` })]).toEqual([op, true]);
    }
    const create = doc.paths['/vernietigingslijsten']!.post;
    expect(JSON.stringify(create.requestBody)).toContain('selectie');
    expect(create.security).toEqual([{ 'JWT-Claims': ['autorisaties.bijwerken'] }]);
    const beoordeling = JSON.stringify(doc.paths['/vernietigingslijsten/{uuid}/beoordelingen']!.post.requestBody);
    expect(beoordeling).toContain('uitzonderingen');
    const yaml = await t.call('GET', '/admin/api/v1/schema/openapi.yaml', undefined, { token: null });
    expect(yaml.body).toContain('vernietigingslijst_beoordelen');
  });
});
