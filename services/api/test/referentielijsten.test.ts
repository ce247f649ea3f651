import { startApp, type TestApp } from './harness';
import { ZTC, catalogus, create, publish, startReferentielijsten, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';

/**
 * The Referentielijsten API the platform serves itself (`/referentielijsten/api/v1`, the Selectielijst 2017 and 2020),
 * and the Catalogi checking selectielijst URLs against it without a network: its own URLs and those of
 * selectielijst.openzaak.nl, by UUID.
 */
const RL = '/referentielijsten/api/v1';
const OZ = 'https://selectielijst.openzaak.nl/api/v1';

// Selectielijst 2020, procestype 1 "Instellen en inrichten organisatie", and its resultaat 1.1 "Ingericht" (nihil,
// vernietigen, P10Y); the same procestype of 2017 and its resultaat 1.1.
const PROCESTYPE_2020 = 'aa8aa2fd-b9c6-4e34-9a6c-58a677f60ea0';
const RESULTAAT_2020 = 'afa30940-855b-4a7e-aa21-9e15a8078814';
const PROCESTYPE_2017 = 'e1b73b12-b2f6-4c4e-8929-94f84dd2a57d';
const RESULTAAT_2017 = 'cc5ae4e3-a9e6-4386-bcee-46be4986a829';
// "Afgewezen": the platform's own UUID, and selectielijst.openzaak.nl's (another one).
const AFGEWEZEN = '2f6e52c7-968f-4aa9-beee-d6b31365e981';
const AFGEWEZEN_OZ = 'e6a0c939-3404-45b0-88e3-76c94fb80ea7';

let t: TestApp;
let own: string;
/** Every request the platform made over the network while the test ran (none may leave for the referentielijsten). */
const requests: string[] = [];
const realFetch = globalThis.fetch;
/** An external referentielijsten service on this machine (the last describe), the one thing the network reaches. */
let external: Referentielijsten | undefined;

beforeAll(async () => {
  // No network: any request over HTTP fails as it would on a machine without internet.
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (external && url.startsWith(`${external.url}/`)) return realFetch(input, init);
    requests.push(url);
    throw new TypeError('fetch failed (no network in this test)');
  }) as typeof fetch;
  // REFERENTIELIJSTEN_URL unset: the default, the platform's own.
  delete process.env.REFERENTIELIJSTEN_URL;
  t = await startApp();
  own = `${t.config.PUBLIC_BASE_URL}${RL}`;
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await t.close();
});

const anonymous = { token: null };

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number): any {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json();
  for (const key of ['type', 'code', 'title', 'status', 'detail', 'instance']) expect(body).toHaveProperty(key);
  expect(body.status).toBe(status);
  return body;
}

describe('the endpoints, read without authorisation, as the Referentielijsten API document says', () => {
  // The required fields of each schema in VNG's referentielijsten-api document.
  const PROCESTYPE_FIELDS = ['jaar', 'naam', 'nummer', 'omschrijving', 'procesobject', 'toelichting', 'url'];
  const RESULTAAT_FIELDS = ['generiek', 'herkomst', 'naam', 'nummer', 'procesType', 'procestermijnWeergave', 'specifiek', 'url', 'volledigNummer'];

  it('defaults REFERENTIELIJSTEN_URL to its own base', () => {
    expect(t.config.REFERENTIELIJSTEN_URL).toBe(own);
  });

  it('procestypen: all 58, filtered by jaar, each by its uuid; a bad jaar is a 400, an unknown uuid a 404', async () => {
    const all = await t.call('GET', `${RL}/procestypen`, undefined, anonymous);
    expect(all.statusCode).toBe(200);
    expect(all.json()).toHaveLength(58);
    for (const p of all.json()) for (const f of PROCESTYPE_FIELDS) expect(p).toHaveProperty(f);

    const jaar2020 = (await t.call('GET', `${RL}/procestypen?jaar=2020`, undefined, anonymous)).json();
    expect(jaar2020).toHaveLength(29);
    expect(jaar2020.every((p: { jaar: number }) => p.jaar === 2020)).toBe(true);
    expect((await t.call('GET', `${RL}/procestypen?jaar=2017`, undefined, anonymous)).json()).toHaveLength(29);
    expect((await t.call('GET', `${RL}/procestypen?jaar=1999`, undefined, anonymous)).json()).toEqual([]);

    const bad = expectProblem(await t.call('GET', `${RL}/procestypen?jaar=twintig`, undefined, anonymous), 400);
    expect(bad.invalidParams).toEqual([expect.objectContaining({ name: 'jaar', code: 'invalid' })]);

    const one = await t.call('GET', `${RL}/procestypen/${PROCESTYPE_2020}`, undefined, anonymous);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({
      url: `${own}/procestypen/${PROCESTYPE_2020}`,
      nummer: 1,
      jaar: 2020,
      naam: 'Instellen en inrichten organisatie',
    });

    expectProblem(await t.call('GET', `${RL}/procestypen/00000000-0000-4000-8000-000000000000`, undefined, anonymous), 404);
    expectProblem(await t.call('GET', `${RL}/procestypen/geen-uuid`, undefined, anonymous), 404);
  });

  it('resultaten: paginated, filtered by procesType or proces_type (compared by UUID), each by its uuid', async () => {
    const first = await t.call('GET', `${RL}/resultaten`, undefined, anonymous);
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1.count).toBe(687);
    expect(page1.results).toHaveLength(100);
    expect(page1.previous).toBeNull();
    expect(page1.next).toContain('page=2');
    for (const r of page1.results) for (const f of RESULTAAT_FIELDS) expect(r).toHaveProperty(f);
    const last = (await t.call('GET', `${RL}/resultaten?page=7`, undefined, anonymous)).json();
    expect(last.results).toHaveLength(87);
    expect(last.next).toBeNull();
    expectProblem(await t.call('GET', `${RL}/resultaten?page=8`, undefined, anonymous), 404);

    const ofProcestype = async (query: string) => {
      const res = await t.call('GET', `${RL}/resultaten?${query}`, undefined, anonymous);
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    const byOwn = await ofProcestype(`procesType=${encodeURIComponent(`${own}/procestypen/${PROCESTYPE_2020}`)}`);
    expect(byOwn.count).toBe(8);
    expect(byOwn.results.every((r: { procesType: string }) => r.procesType === `${own}/procestypen/${PROCESTYPE_2020}`)).toBe(true);
    expect(byOwn.results.map((r: { url: string }) => r.url)).toContain(`${own}/resultaten/${RESULTAAT_2020}`);
    // The same procestype named by selectielijst.openzaak.nl's URL, and with VNG's spelling of the parameter.
    expect(await ofProcestype(`procesType=${encodeURIComponent(`${OZ}/procestypen/${PROCESTYPE_2020}`)}`)).toEqual(byOwn);
    const snake = await ofProcestype(`proces_type=${encodeURIComponent(`${own}/procestypen/${PROCESTYPE_2020}`)}`);
    expect(snake.results).toEqual(byOwn.results);
    expect(
      (await ofProcestype(`procesType=${encodeURIComponent(`${own}/procestypen/${PROCESTYPE_2017}`)}`)).results.map((r: { url: string }) => r.url),
    ).toContain(`${own}/resultaten/${RESULTAAT_2017}`);
    expect((await ofProcestype(`procesType=${encodeURIComponent(`${own}/procestypen/00000000-0000-4000-8000-000000000000`)}`)).count).toBe(0);

    const bad = expectProblem(await t.call('GET', `${RL}/resultaten?procesType=geen-url`, undefined, anonymous), 400);
    expect(bad.invalidParams).toEqual([expect.objectContaining({ name: 'procesType', code: 'invalid' })]);
    expectProblem(await t.call('GET', `${RL}/resultaten?proces_type=geen-url`, undefined, anonymous), 400);
    expectProblem(await t.call('GET', `${RL}/resultaten?onbekend=1`, undefined, anonymous), 400);

    const one = await t.call('GET', `${RL}/resultaten/${RESULTAAT_2020}`, undefined, anonymous);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({
      url: `${own}/resultaten/${RESULTAAT_2020}`,
      procesType: `${own}/procestypen/${PROCESTYPE_2020}`,
      volledigNummer: '1.1',
      naam: 'Ingericht',
      procestermijn: 'nihil',
      waardering: 'vernietigen',
      bewaartermijn: 'P10Y',
    });
    expectProblem(await t.call('GET', `${RL}/resultaten/00000000-0000-4000-8000-000000000000`, undefined, anonymous), 404);
  });

  it('resultaattypeomschrijvingen and communicatiekanalen, lists and details', async () => {
    const omschrijvingen = await t.call('GET', `${RL}/resultaattypeomschrijvingen`, undefined, anonymous);
    expect(omschrijvingen.statusCode).toBe(200);
    expect(omschrijvingen.json()).toHaveLength(38);
    for (const o of omschrijvingen.json()) for (const f of ['definitie', 'omschrijving', 'url']) expect(o).toHaveProperty(f);
    expect((await t.call('GET', `${RL}/resultaattypeomschrijvingen/${AFGEWEZEN}`, undefined, anonymous)).json()).toEqual({
      url: `${own}/resultaattypeomschrijvingen/${AFGEWEZEN}`,
      omschrijving: 'Afgewezen',
      definitie: '',
      opmerking: '',
    });
    expectProblem(await t.call('GET', `${RL}/resultaattypeomschrijvingen/${AFGEWEZEN_OZ}`, undefined, anonymous), 404);

    const kanalen = (await t.call('GET', `${RL}/communicatiekanalen`, undefined, anonymous)).json();
    expect(kanalen).toMatchObject({ count: 1, next: null, previous: null });
    expect(kanalen.results[0]).toMatchObject({ naam: 'Telefonisch' });
    expect((await t.call('GET', kanalen.results[0].url, undefined, anonymous)).json()).toEqual(kanalen.results[0]);
    expectProblem(await t.call('GET', `${RL}/communicatiekanalen/00000000-0000-4000-8000-000000000000`, undefined, anonymous), 404);
  });

  it('serves its own OpenAPI document: the operations of the file, no security', async () => {
    const res = await t.call('GET', `${RL}/schema/openapi.json`, undefined, anonymous);
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.info.title).toBe('Referentielijsten & Selectielijst API');
    expect(doc.security).toBeUndefined();
    const operations = Object.entries(doc.paths as Record<string, Record<string, { operationId: string; security?: unknown }>>).flatMap(
      ([path, ops]) => Object.values(ops).map((op) => `${path} ${op.operationId}${op.security ? ' (security)' : ''}`),
    );
    expect(operations.sort()).toEqual(
      [
        '/communicatiekanalen communicatiekanaal_list',
        '/communicatiekanalen/{uuid} communicatiekanaal_retrieve',
        '/health health_retrieve',
        '/procestypen procestypen_list',
        '/procestypen/{uuid} procestypen_retrieve',
        '/resultaattypeomschrijvingen resultaattypeomschrijvinggeneriek_list',
        '/resultaattypeomschrijvingen/{uuid} resultaattypeomschrijvinggeneriek_retrieve',
        '/resultaten resultaten_list',
        '/resultaten/{uuid} resultaten_retrieve',
      ].sort(),
    );
    const params = (doc.paths['/resultaten'].get.parameters as { name: string }[]).map((p) => p.name).sort();
    expect(params).toEqual(['page', 'procesType', 'proces_type']);
    expect(doc.components.schemas.Resultaat.required).toEqual(expect.arrayContaining(RESULTAAT_FIELDS));
    expect(doc.components.schemas.ProcesType.required).toEqual(expect.arrayContaining(PROCESTYPE_FIELDS));
  });
});

describe('catalogi validate selectielijst URLs in process, without a network', () => {
  const resultaattype = (zaaktype: string, over: Record<string, unknown>) => ({
    zaaktype,
    omschrijving: 'Ingericht',
    brondatumArchiefprocedure: { afleidingswijze: 'afgehandeld' },
    beginGeldigheid: '2020-01-01',
    ...over,
  });

  it("a zaaktype with a resultaattype naming a 2020 selectielijst resultaat by the platform's own URLs is made and published", async () => {
    const cat = await catalogus(t, 'RLOWN');
    const zt = await create(
      t,
      'zaaktypen',
      zaaktypeBody(cat, { identificatie: 'RL-OWN', selectielijstProcestype: `${own}/procestypen/${PROCESTYPE_2020}` }),
    );
    const rt = await create(
      t,
      'resultaattypen',
      resultaattype(zt.url, {
        resultaattypeomschrijving: `${own}/resultaattypeomschrijvingen/${AFGEWEZEN}`,
        selectielijstklasse: `${own}/resultaten/${RESULTAAT_2020}`,
      }),
    );
    expect(rt).toMatchObject({ omschrijvingGeneriek: 'Afgewezen', archiefnominatie: 'vernietigen', archiefactietermijn: 'P10Y' });
    await publish(t, zt.url);
    expect((await t.call('GET', zt.url)).json()).toMatchObject({ concept: false, resultaattypen: [rt.url] });
    expect(requests.filter((u) => u.includes('referentielijsten') || u.includes('selectielijst'))).toEqual([]);
  });

  it('the same with the URLs of selectielijst.openzaak.nl (procestype and resultaat by UUID, the omschrijving by its name)', async () => {
    const cat = await catalogus(t, 'RLOZ');
    const zt = await create(
      t,
      'zaaktypen',
      zaaktypeBody(cat, { identificatie: 'RL-OZ', selectielijstProcestype: `${OZ}/procestypen/${PROCESTYPE_2020}` }),
    );
    const rt = await create(
      t,
      'resultaattypen',
      resultaattype(zt.url, {
        resultaattypeomschrijving: `${OZ}/resultaattypeomschrijvingen/${AFGEWEZEN_OZ}`,
        selectielijstklasse: `${OZ}/resultaten/${RESULTAAT_2020}`,
      }),
    );
    // kept as given: a catalogus made in Open Zaak keeps its URLs
    expect(rt).toMatchObject({
      resultaattypeomschrijving: `${OZ}/resultaattypeomschrijvingen/${AFGEWEZEN_OZ}`,
      selectielijstklasse: `${OZ}/resultaten/${RESULTAAT_2020}`,
      omschrijvingGeneriek: 'Afgewezen',
      archiefnominatie: 'vernietigen',
      archiefactietermijn: 'P10Y',
    });
    // One named by the platform's own URL and the other by Open Zaak's: the same procestype.
    const mixed = await create(
      t,
      'resultaattypen',
      resultaattype(zt.url, {
        omschrijving: 'Ingericht (eigen)',
        resultaattypeomschrijving: `${own}/resultaattypeomschrijvingen/${AFGEWEZEN}`,
        selectielijstklasse: `${own}/resultaten/${RESULTAAT_2020}`,
      }),
    );
    expect(mixed.omschrijvingGeneriek).toBe('Afgewezen');
    await publish(t, zt.url);
    expect((await t.call('GET', zt.url)).json().concept).toBe(false);
    expect(requests.filter((u) => u.includes('referentielijsten') || u.includes('selectielijst'))).toEqual([]);

    // An object selectielijst.openzaak.nl does not have either is a bad-url, as an unreachable one always was.
    const unknown = await t.call(
      'POST',
      `${ZTC}/resultaattypen`,
      resultaattype(zt.url, {
        omschrijving: 'Onbekend',
        resultaattypeomschrijving: `${OZ}/resultaattypeomschrijvingen/${AFGEWEZEN_OZ}`,
        selectielijstklasse: `${OZ}/resultaten/00000000-0000-4000-8000-000000000000`,
      }),
    );
    expect(expectProblem(unknown, 400).invalidParams).toEqual([expect.objectContaining({ name: 'selectielijstklasse', code: 'bad-url' })]);
  });

  it('a resultaat of another procestype is refused, compared by UUID', async () => {
    const cat = await catalogus(t, 'RLMIS');
    const zt = await create(
      t,
      'zaaktypen',
      zaaktypeBody(cat, { identificatie: 'RL-MIS', selectielijstProcestype: `${own}/procestypen/${PROCESTYPE_2020}` }),
    );
    for (const base of [own, OZ]) {
      const res = await t.call(
        'POST',
        `${ZTC}/resultaattypen`,
        resultaattype(zt.url, {
          resultaattypeomschrijving: `${own}/resultaattypeomschrijvingen/${AFGEWEZEN}`,
          selectielijstklasse: `${base}/resultaten/${RESULTAAT_2017}`,
        }),
      );
      expect(expectProblem(res, 400).invalidParams).toEqual([expect.objectContaining({ name: 'nonFieldErrors', code: 'procestype-mismatch' })]);
    }
    // The 2017 procestype's own resultaat, by Open Zaak's URL, on a zaaktype naming that procestype by the platform's.
    const zt2017 = await create(
      t,
      'zaaktypen',
      zaaktypeBody(cat, { identificatie: 'RL-2017', selectielijstProcestype: `${own}/procestypen/${PROCESTYPE_2017}` }),
    );
    await create(
      t,
      'resultaattypen',
      resultaattype(zt2017.url, {
        resultaattypeomschrijving: `${own}/resultaattypeomschrijvingen/${AFGEWEZEN}`,
        selectielijstklasse: `${OZ}/resultaten/${RESULTAAT_2017}`,
      }),
    );
  });
});

describe('an external referentielijsten service stays configurable', () => {
  let ext: TestApp;
  beforeAll(async () => {
    external = await startReferentielijsten();
    ext = await startApp({ REFERENTIELIJSTEN_URL: external.url });
  });
  afterAll(async () => {
    await ext.close();
    await external?.close();
  });

  it("its URLs are fetched, a resultaat belongs to the procestype by UUID, the platform's own still answer in process", async () => {
    const sl = external!;
    const before = requests.length;
    const cat = await catalogus(ext, 'RLEXT');
    const zt = await create(ext, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'RL-EXT', selectielijstProcestype: sl.procestype }));
    const body = (selectielijstklasse: string) => ({
      zaaktype: zt.url,
      omschrijving: 'Afgehandeld',
      resultaattypeomschrijving: sl.omschrijving,
      selectielijstklasse,
      brondatumArchiefprocedure: { afleidingswijze: 'afgehandeld' },
      beginGeldigheid: '2020-01-01',
    });
    expect((await create(ext, 'resultaattypen', body(sl.resultaat.nihil))).omschrijvingGeneriek).toBe('Afgewezen');
    // The service names the zaaktype's procestype under another base (as an alias would): the same UUID, so the same one.
    const uuid = sl.procestype.split('/').pop();
    const elsewhere = sl.add('resultaten/a6666666-6666-4666-8666-666666666666', {
      procesType: `${OZ}/procestypen/${uuid}`,
      procestermijn: 'nihil',
      nummer: 1,
      naam: 'R',
      waardering: 'vernietigen',
      bewaartermijn: 'P10Y',
    });
    expect((await create(ext, 'resultaattypen', body(elsewhere))).selectielijstklasse).toBe(elsewhere);
    const other = await ext.call('POST', `${ZTC}/resultaattypen`, body(sl.resultaat.ander));
    expect(expectProblem(other, 400).invalidParams).toEqual([expect.objectContaining({ code: 'procestype-mismatch' })]);

    // The platform's own referentielijsten, with another service configured: still served and read in process.
    const zt2 = await create(
      ext,
      'zaaktypen',
      zaaktypeBody(cat, { identificatie: 'RL-EXT-2', selectielijstProcestype: `${OZ}/procestypen/${PROCESTYPE_2020}` }),
    );
    const rt = await create(ext, 'resultaattypen', {
      ...body(`${ext.config.PUBLIC_BASE_URL}${RL}/resultaten/${RESULTAAT_2020}`),
      zaaktype: zt2.url,
      resultaattypeomschrijving: `${OZ}/resultaattypeomschrijvingen/${AFGEWEZEN_OZ}`,
    });
    expect(rt.archiefactietermijn).toBe('P10Y');
    expect(requests.slice(before)).toEqual([]);
  });
});
