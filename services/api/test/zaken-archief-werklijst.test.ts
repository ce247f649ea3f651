import { catalogus, create, publish, startReferentielijsten, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { adminOf, organisation } from './tenants.fixtures';
import { CRS, createZ, zaakBody } from './zaken.fixtures';

// Legal hold (juridische bewaring) and the archivist's worklist, through the admin API: a hold set and lifted with its
// reason and in the zaak's audit trail, never in the zaak's representation; the worklist holds exactly the closed
// zaken whose archiving an archivist must complete.

let t: TestApp;
let sl: Referentielijsten;
let s: { zaaktype: string; eind: string; rt: Record<string, string> };
const ANDER = '111222333';

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  const zt = await create(
    t,
    'zaaktypen',
    zaaktypeBody(await catalogus(t, 'ARCH'), { selectielijstProcestype: sl.procestype, informatieobjecttypen: [] }),
  );
  const part = (collection: string, body: Record<string, unknown>) => create(t, collection, { zaaktype: zt.url, ...body });
  await part('statustypen', { omschrijving: 'begin', volgnummer: 1 });
  const eind = await part('statustypen', { omschrijving: 'eind', volgnummer: 2 });
  const bewaren = sl.add('resultaten/a7777777-7777-4777-8777-777777777777', {
    procesType: sl.procestype,
    procestermijn: 'vast_te_leggen_datum',
    nummer: 3,
    naam: 'Bewaren',
    waardering: 'blijvend_bewaren',
    bewaartermijn: null,
  });
  const resultaattype = async (omschrijving: string, afleidingswijze: string, over: Record<string, unknown> = {}, rt: Record<string, unknown> = {}) =>
    (
      await part('resultaattypen', {
        omschrijving,
        resultaattypeomschrijving: sl.omschrijving,
        selectielijstklasse: sl.resultaat.vast,
        archiefnominatie: 'vernietigen',
        archiefactietermijn: 'P5Y',
        brondatumArchiefprocedure: {
          afleidingswijze,
          procestermijn: null,
          datumkenmerk: '',
          einddatumBekend: false,
          objecttype: '',
          registratie: '',
          ...over,
        },
        ...rt,
      })
    ).url as string;
  const rt = {
    afgehandeld: await resultaattype('Afgehandeld', 'afgehandeld'),
    ander: await resultaattype('Ander', 'ander_datumkenmerk', { datumkenmerk: 'iets', objecttype: 'pand', registratie: 'BAG' }),
    bewaren: await resultaattype(
      'Bewaren',
      'ander_datumkenmerk',
      { datumkenmerk: 'iets', objecttype: 'pand', registratie: 'BAG' },
      { selectielijstklasse: bewaren, archiefnominatie: 'blijvend_bewaren', archiefactietermijn: null },
    ),
  };
  await publish(t, zt.url);
  s = { zaaktype: zt.url, eind: eind.url, rt };
  await organisation(t, ANDER);
}, 120_000);
afterAll(async () => {
  await t.close();
  await sl.close();
});

jest.setTimeout(120_000);

const call = (method: string, url: string, body?: unknown, token?: string | null) => t.call(method, url, body, { headers: CRS, token });
const zaak = () => createZ(t, 'zaken', zaakBody(s.zaaktype));
async function sluit(zaakUrl: string, resultaattype: string | null, dag: string): Promise<Record<string, any> | undefined> {
  const resultaat = resultaattype ? await createZ(t, 'resultaten', { zaak: zaakUrl, resultaattype }) : undefined;
  await createZ(t, 'statussen', { zaak: zaakUrl, statustype: s.eind, datumStatusGezet: `${dag}T10:00:00Z` });
  return resultaat;
}
const uuidOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
const hold = (zaakUrl: string) => `/admin/api/v1/zaken/${uuidOf(zaakUrl)}/juridische-bewaring`;

describe('the worklist', () => {
  it('shows exactly the closed zaken without an archiefactiedatum (vernietigen) or without an archiefnominatie, oldest first', async () => {
    const open = await zaak();
    const afgeleid = await zaak();
    await sluit(afgeleid.url, s.rt.afgehandeld, '2024-03-01');
    const ander = await zaak();
    await sluit(ander.url, s.rt.ander, '2024-03-03');
    const bewaren = await zaak();
    await sluit(bewaren.url, s.rt.bewaren, '2024-03-04');
    const zonder = await zaak();
    await sluit(zonder.url, null, '2024-03-02');
    const weg = await zaak();
    const resultaat = await sluit(weg.url, s.rt.afgehandeld, '2024-03-05');
    expect((await call('DELETE', resultaat!.url)).statusCode).toBe(204);

    const res = await call('GET', '/admin/api/v1/archief/werklijst');
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.count).toBe(3);
    expect(list.results.map((r: { url: string }) => r.url)).toEqual([zonder.url, ander.url, weg.url]);
    const [geenResultaat, geenDatum, resultaatWeg] = list.results;
    expect(geenResultaat).toMatchObject({
      identificatie: zonder.identificatie,
      zaaktype: s.zaaktype,
      einddatum: '2024-03-02',
      archiefnominatie: null,
      archiefactiedatum: null,
      archiefstatus: 'nog_te_archiveren',
      resultaat: null,
      reden: 'geen_resultaat',
      opBewaring: false,
    });
    expect(geenDatum).toMatchObject({
      einddatum: '2024-03-03',
      archiefnominatie: 'vernietigen',
      archiefactiedatum: null,
      resultaattype: s.rt.ander,
      reden: 'geen_archiefactiedatum',
    });
    expect(geenDatum.resultaat).toMatch(/\/zaken\/api\/v1\/resultaten\//);
    expect(resultaatWeg).toMatchObject({ reden: 'geen_resultaat', einddatum: '2024-03-05' });
    expect(typeof geenDatum.toelichting).toBe('string');
    expect(list.results.map((r: { url: string }) => r.url)).not.toContain(open.url);

    // the archivist sets the date through the Zaken API: the zaak leaves the list
    const patched = await call('PATCH', ander.url, { archiefactiedatum: '2035-01-01' });
    expect(patched.statusCode).toBe(200);
    const after = (await call('GET', '/admin/api/v1/archief/werklijst')).json();
    expect(after.results.map((r: { url: string }) => r.url)).toEqual([zonder.url, weg.url]);

    // another organisation's worklist holds none of these
    const theirs = await call('GET', '/admin/api/v1/archief/werklijst', undefined, adminOf(ANDER));
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json()).toMatchObject({ count: 0, results: [] });
  });

  it('is paginated', async () => {
    const res = await call('GET', '/admin/api/v1/archief/werklijst?page=1');
    expect(res.json()).toMatchObject({ previous: null, next: null });
    expect((await call('GET', '/admin/api/v1/archief/werklijst?page=9')).statusCode).toBe(404);
  });
});

describe('legal hold', () => {
  it('is set with its reason, listed, kept out of the zaak, in its audit trail, and lifted', async () => {
    const z = await zaak();
    await sluit(z.url, s.rt.afgehandeld, '2024-04-01');
    const before = (await call('GET', z.url)).json();

    const set = await call('PUT', hold(z.url), { reden: 'Lopende procedure bij de rechtbank (zaaknummer 2025/123).' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({
      zaak: z.url,
      identificatie: z.identificatie,
      reden: 'Lopende procedure bij de rechtbank (zaaknummer 2025/123).',
      gezetDoor: 'test-admin',
    });
    expect(Date.parse(set.json().gezetOp)).toBeGreaterThan(Date.now() - 60_000);

    // not in the ZGW representation
    expect((await call('GET', z.url)).json()).toEqual(before);

    const list = (await call('GET', '/admin/api/v1/archief/bewaring')).json();
    expect(list.count).toBe(1);
    expect(list.results[0]).toMatchObject({ zaak: z.url, reden: 'Lopende procedure bij de rechtbank (zaaknummer 2025/123).' });

    // a client's change of the zaak keeps the hold
    expect((await call('PATCH', z.url, { omschrijving: 'gewijzigd' })).statusCode).toBe(200);
    expect((await call('GET', '/admin/api/v1/archief/bewaring')).json().count).toBe(1);

    // the reason changed: still one hold
    expect((await call('PUT', hold(z.url), { reden: 'Verzoek van de Inspectie.' })).statusCode).toBe(200);
    expect((await call('GET', '/admin/api/v1/archief/bewaring')).json().results).toEqual([
      expect.objectContaining({ zaak: z.url, reden: 'Verzoek van de Inspectie.' }),
    ]);

    const lifted = await call('DELETE', hold(z.url));
    expect(lifted.statusCode).toBe(204);
    expect((await call('GET', '/admin/api/v1/archief/bewaring')).json()).toMatchObject({ count: 0, results: [] });
    // lifting again: nothing is on hold
    expect((await call('DELETE', hold(z.url))).statusCode).toBe(404);

    const trail = (await call('GET', `${z.url}/audittrail`)).json() as { actie: string; actieWeergave: string; toelichting: string }[];
    const holds = trail.filter((e) => e.actie.startsWith('juridische_bewaring'));
    expect(holds.map((e) => [e.actie, e.toelichting])).toEqual([
      ['juridische_bewaring', 'Juridische bewaring: Lopende procedure bij de rechtbank (zaaknummer 2025/123).'],
      ['juridische_bewaring', 'Juridische bewaring: Verzoek van de Inspectie.'],
      ['juridische_bewaring_opgeheven', 'Juridische bewaring opgeheven (reden was: Verzoek van de Inspectie.)'],
    ]);
  });

  it('keeps a zaak from a DELETE through the Zaken API, and a hoofdzaak whose deelzaak is held, until lifted', async () => {
    const z = await zaak();
    await sluit(z.url, s.rt.afgehandeld, '2024-04-02');
    const hoofd = await zaak();
    const deel = await createZ(t, 'zaken', { ...zaakBody(s.zaaktype), hoofdzaak: hoofd.url });
    for (const held of [z, deel]) expect((await call('PUT', hold(held.url), { reden: 'Bezwaar loopt.' })).statusCode).toBe(200);

    for (const [target, held] of [
      [z, z],
      [hoofd, deel],
    ]) {
      const refused = await call('DELETE', target.url);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().invalidParams).toEqual([
        expect.objectContaining({ name: 'nonFieldErrors', code: 'juridische-bewaring', reason: expect.stringContaining(held.identificatie) }),
      ]);
      expect((await call('GET', target.url)).statusCode).toBe(200);
    }
    expect((await call('GET', deel.url)).statusCode).toBe(200);

    for (const held of [z, deel]) expect((await call('DELETE', hold(held.url))).statusCode).toBe(204);
    expect((await call('DELETE', z.url)).statusCode).toBe(204);
    expect((await call('DELETE', hoofd.url)).statusCode).toBe(204);
    expect((await call('GET', deel.url)).statusCode).toBe(404);
  });

  it("refuses bad input (400 in the ZGW problem format), an unknown zaak and another organisation's (404)", async () => {
    const z = await zaak();
    for (const body of [{}, { reden: '' }, { reden: '   ' }, { reden: 12 }, { reden: 'x'.repeat(1001) }]) {
      const res = await call('PUT', hold(z.url), body);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 400, invalidParams: [expect.objectContaining({ name: 'reden' })] });
    }
    const notJson = await call('PUT', hold(z.url), '[1]');
    expect(notJson.statusCode).toBe(400);
    for (const uuid of ['0d6c3b0c-4a4b-4d5e-9f00-1234567890ab', 'geen-uuid']) {
      const res = await call('PUT', `/admin/api/v1/zaken/${uuid}/juridische-bewaring`, { reden: 'onbekend' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, code: 'not_found' });
      expect((await call('DELETE', `/admin/api/v1/zaken/${uuid}/juridische-bewaring`)).statusCode).toBe(404);
    }
    // another organisation's administrator: the zaak does not exist for it, and its list stays empty
    const theirs = await call('PUT', hold(z.url), { reden: 'van een ander' }, adminOf(ANDER));
    expect(theirs.statusCode).toBe(404);
    expect((await call('GET', '/admin/api/v1/archief/bewaring', undefined, adminOf(ANDER))).json()).toMatchObject({ count: 0 });
    expect((await call('GET', '/admin/api/v1/archief/bewaring')).json()).toMatchObject({ count: 0 });
    // without a token: refused
    expect((await call('GET', '/admin/api/v1/archief/werklijst', undefined, null)).statusCode).toBe(401);
  });
});
