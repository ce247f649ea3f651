import { startApp, type TestApp } from './harness';
import {
  ZTC,
  besluittypeBody,
  catalogus,
  create,
  iotBody,
  publish,
  startReferentielijsten,
  zaaktypeBody,
  type Referentielijsten,
} from './catalogi.fixtures';

let t: TestApp;
let sl: Referentielijsten;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const urls = (res: { json(): any }) => (res.json().results as { url: string }[]).map((r) => r.url);

describe('catalogussen', () => {
  it('creates, reads and filters catalogussen; they have no update or delete', async () => {
    const a = await create(t, 'catalogussen', { domein: 'AAA', rsin: '000000000', contactpersoonBeheerNaam: 'A' });
    const b = await create(t, 'catalogussen', { domein: 'BBB', rsin: '123456782', contactpersoonBeheerNaam: 'B' });
    expect(a).toMatchObject({ domein: 'AAA', zaaktypen: [], besluittypen: [], informatieobjecttypen: [], naam: null });
    const read = await t.call('GET', a.url);
    expect(read.statusCode).toBe(200);
    expect(read.headers['api-version']).toBe('1.3.1');
    expect(read.headers.etag).toBeDefined();
    expect((await t.call('HEAD', a.url)).statusCode).toBe(200);
    expect(urls(await t.call('GET', `${ZTC}/catalogussen?domein=AAA`))).toEqual([a.url]);
    expect(urls(await t.call('GET', `${ZTC}/catalogussen?domein__in=AAA,BBB`)).sort()).toEqual([a.url, b.url].sort());
    expect(urls(await t.call('GET', `${ZTC}/catalogussen?rsin=123456782`))).toEqual([b.url]);
    expect(urls(await t.call('GET', `${ZTC}/catalogussen?rsin__in=123456782&domein=AAA`))).toEqual([]);
    expect([404, 405]).toContain((await t.call('DELETE', a.url)).statusCode);
    expect([404, 405]).toContain((await t.call('PATCH', a.url, { domein: 'X' })).statusCode);
  });
});

describe('zaaktypen, besluittypen and informatieobjecttypen', () => {
  it('full lifecycle of a zaaktype with list filters and the catalogus showing it', async () => {
    const cat = await catalogus(t, 'ZT');
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { trefwoorden: ['a', 'b'], selectielijstProcestype: sl.procestype }));
    expect(zt).toMatchObject({ concept: true, identificatie: 'ZT-1', besluittypen: [], statustypen: [], toelichting: '', eindeGeldigheid: null });
    expect((await t.call('GET', cat)).json().zaaktypen).toEqual([zt.url]);

    // The status filter defaults to definitief.
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?catalogus=${cat}`))).toEqual([]);
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?catalogus=${cat}&status=concept`))).toEqual([zt.url]);
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?status=alles&identificatie=ZT-1&catalogus=${cat}`))).toEqual([zt.url]);
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?status=alles&trefwoorden=a,b&catalogus=${cat}`))).toEqual([zt.url]);
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?status=alles&trefwoorden=c&catalogus=${cat}`))).toEqual([]);
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?status=alles&datumGeldigheid=2019-12-31&catalogus=${cat}`))).toEqual([]);
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?status=alles&datumGeldigheid=2030-01-01&catalogus=${cat}`))).toEqual([zt.url]);

    const put = await t.call('PUT', zt.url, zaaktypeBody(cat, { omschrijving: 'aangepast' }));
    expect(put.statusCode).toBe(200);
    expect(put.json().omschrijving).toBe('aangepast');
    const patch = await t.call('PATCH', zt.url, { toelichting: 'uitleg' });
    expect(patch.json()).toMatchObject({ omschrijving: 'aangepast', toelichting: 'uitleg', concept: true });

    const published = await t.call('POST', `${zt.url}/publish`);
    expect(published.statusCode).toBe(200);
    expect(published.json().concept).toBe(false);
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?catalogus=${cat}`))).toEqual([zt.url]);
    expect(urls(await t.call('GET', `${ZTC}/zaaktypen?catalogus=${cat}&status=concept`))).toEqual([]);

    expect((await t.call('DELETE', zt.url)).statusCode).toBe(204);
    expect((await t.call('GET', zt.url)).statusCode).toBe(404);
  });

  it('besluittypen and informatieobjecttypen: CRUD, publish, relations both ways and filters', async () => {
    const cat = await catalogus(t, 'BT');
    const iot = await create(t, 'informatieobjecttypen', iotBody(cat));
    const bt = await create(t, 'besluittypen', besluittypeBody(cat, { informatieobjecttypen: [iot.url] }));
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { besluittypen: ['besluit'] }));
    expect(bt.informatieobjecttypen).toEqual([iot.url]);
    expect(bt.zaaktypen).toEqual([]);
    expect((await t.call('GET', bt.url)).json().zaaktypen).toEqual([zt.url]);
    expect(zt.besluittypen).toEqual([bt.url]);
    expect((await t.call('GET', iot.url)).json()).toMatchObject({ besluittypen: [bt.url], concept: true });

    const q = `${ZTC}/besluittypen?status=alles`;
    expect(urls(await t.call('GET', `${q}&catalogus=${cat}`))).toEqual([bt.url]);
    expect(urls(await t.call('GET', `${q}&zaaktypen=${zt.url}`))).toEqual([bt.url]);
    expect(urls(await t.call('GET', `${q}&informatieobjecttypen=${iot.url}`))).toEqual([bt.url]);
    expect(urls(await t.call('GET', `${q}&omschrijving=besluit&catalogus=${cat}`))).toEqual([bt.url]);
    expect(urls(await t.call('GET', `${q}&omschrijving=anders&catalogus=${cat}`))).toEqual([]);
    expect(urls(await t.call('GET', `${q}&datumGeldigheid=2019-01-01&catalogus=${cat}`))).toEqual([]);
    expect(urls(await t.call('GET', `${ZTC}/besluittypen?catalogus=${cat}`))).toEqual([]);

    const iq = `${ZTC}/informatieobjecttypen?catalogus=${cat}`;
    expect(urls(await t.call('GET', `${iq}&status=concept&omschrijving=document`))).toEqual([iot.url]);
    expect(urls(await t.call('GET', `${iq}&status=definitief`))).toEqual([]);
    await publish(t, iot.url);
    expect(urls(await t.call('GET', iq))).toEqual([iot.url]);
    expect(urls(await t.call('GET', `${iq}&datumGeldigheid=2021-06-01`))).toEqual([iot.url]);

    const put = await t.call('PUT', bt.url, besluittypeBody(cat, { toelichting: 'x', informatieobjecttypen: [iot.url] }));
    expect(put.statusCode).toBe(200);
    expect((await t.call('PATCH', bt.url, { besluitcategorie: 'cat' })).json().besluitcategorie).toBe('cat');
    await publish(t, bt.url);
    expect((await t.call('GET', bt.url)).json().concept).toBe(false);
  });
});

describe('datumGeldigheid on a zaaktype', () => {
  it('applies to the zaaktype itself and to the versions of what it shows', async () => {
    const cat = await catalogus(t, 'DGD');
    const v1 = await create(
      t,
      'besluittypen',
      besluittypeBody(cat, { omschrijving: 'vergunning', beginGeldigheid: '2020-01-01', eindeGeldigheid: '2020-12-31' }),
    );
    const v2 = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'vergunning', beginGeldigheid: '2021-01-01' }));
    const zt = await create(
      t,
      'zaaktypen',
      zaaktypeBody(cat, { besluittypen: ['vergunning'], beginGeldigheid: '2020-01-01', eindeGeldigheid: '2022-12-31' }),
    );
    // Without datumGeldigheid: the version valid today.
    expect(zt.besluittypen).toEqual([v2.url]);
    expect((await t.call('GET', `${zt.url}?datumGeldigheid=2020-06-01`)).json().besluittypen).toEqual([v1.url]);
    expect((await t.call('GET', `${zt.url}?datumGeldigheid=2021-06-01`)).json().besluittypen).toEqual([v2.url]);
    expect((await t.call('GET', `${zt.url}?datumGeldigheid=2019-12-31`)).statusCode).toBe(404);
    expect((await t.call('GET', `${zt.url}?datumGeldigheid=2023-01-01`)).statusCode).toBe(404);
    const bad = await t.call('GET', `${zt.url}?datumGeldigheid=morgen`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().invalidParams[0].name).toBe('datumGeldigheid');
  });
});

describe('parts of a zaaktype', () => {
  let cat: string;
  let zt: Record<string, any>;
  beforeAll(async () => {
    cat = await catalogus(t, 'PRT');
    zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'PRT-1', selectielijstProcestype: sl.procestype }));
  });

  it('statustypen: CRUD, isEindstatus and filters', async () => {
    const s1 = await create(t, 'statustypen', { zaaktype: zt.url, omschrijving: 'Ontvangen', volgnummer: 1 });
    const s2 = await create(t, 'statustypen', { zaaktype: zt.url, omschrijving: 'Afgerond', volgnummer: 2 });
    expect(s1).toMatchObject({ catalogus: cat, zaaktypeIdentificatie: 'PRT-1', isEindstatus: true, informeren: false });
    expect(s2.isEindstatus).toBe(true);
    expect((await t.call('GET', s1.url)).json().isEindstatus).toBe(false);
    expect((await t.call('GET', zt.url)).json().statustypen).toEqual([s1.url, s2.url]);
    const q = `${ZTC}/statustypen?status=concept`;
    expect(urls(await t.call('GET', `${q}&zaaktype=${zt.url}`))).toEqual([s1.url, s2.url]);
    expect(urls(await t.call('GET', `${q}&zaaktypeIdentificatie=PRT-1`))).toEqual([s1.url, s2.url]);
    expect(urls(await t.call('GET', `${ZTC}/statustypen?zaaktype=${zt.url}`))).toEqual([]);
    expect((await t.call('PATCH', s1.url, { omschrijving: 'aangepast2' })).json().omschrijving).toBe('aangepast2');
    expect((await t.call('PUT', s1.url, { zaaktype: zt.url, omschrijving: 'aangepast', volgnummer: 1 })).json().omschrijving).toBe('aangepast');
    expect((await t.call('DELETE', s2.url)).statusCode).toBe(204);
    expect((await t.call('GET', s1.url)).json().isEindstatus).toBe(true);
  });

  it('roltypen: CRUD and the omschrijvingGeneriek filter', async () => {
    const r = await create(t, 'roltypen', { zaaktype: zt.url, omschrijving: 'Adviseur', omschrijvingGeneriek: 'adviseur' });
    await create(t, 'roltypen', { zaaktype: zt.url, omschrijving: 'Initiator', omschrijvingGeneriek: 'initiator' });
    expect(urls(await t.call('GET', `${ZTC}/roltypen?status=alles&zaaktype=${zt.url}&omschrijvingGeneriek=adviseur`))).toEqual([r.url]);
    expect((await t.call('PATCH', r.url, { omschrijving: 'x' })).json()).toMatchObject({ omschrijving: 'x', omschrijvingGeneriek: 'adviseur' });
    expect((await t.call('DELETE', r.url)).statusCode).toBe(204);
  });

  it('eigenschappen: CRUD with specificatie', async () => {
    const e = await create(t, 'eigenschappen', {
      zaaktype: zt.url,
      naam: 'kleur',
      definitie: 'de kleur',
      specificatie: { formaat: 'tekst', lengte: '5', kardinaliteit: '1', waardenverzameling: ['rood'] },
    });
    expect(e.specificatie).toEqual({ groep: '', formaat: 'tekst', lengte: '5', kardinaliteit: '1', waardenverzameling: ['rood'] });
    expect((await t.call('GET', zt.url)).json().eigenschappen).toContain(e.url);
    expect(urls(await t.call('GET', `${ZTC}/eigenschappen?status=alles&zaaktype=${zt.url}`))).toEqual([e.url]);
    expect((await t.call('PATCH', e.url, { toelichting: 'aangepast2' })).json().toelichting).toBe('aangepast2');
    expect((await t.call('DELETE', e.url)).statusCode).toBe(204);
  });

  it('zaakobjecttypen: CRUD and their filters', async () => {
    const z = await create(t, 'zaakobjecttypen', {
      zaaktype: zt.url,
      catalogus: cat,
      anderObjecttype: false,
      beginGeldigheid: '2021-01-01',
      objecttype: 'https://objecttypen.example/api/v2/objecttypes/1',
      relatieOmschrijving: 'betreft',
    });
    expect((await t.call('GET', zt.url)).json().zaakobjecttypen).toEqual([z.url]);
    const q = `${ZTC}/zaakobjecttypen?zaaktype=${zt.url}`;
    expect(urls(await t.call('GET', `${q}&anderObjecttype=false&relatieOmschrijving=betreft`))).toEqual([z.url]);
    expect(urls(await t.call('GET', `${q}&anderObjecttype=true`))).toEqual([]);
    expect(urls(await t.call('GET', `${q}&datumBeginGeldigheid=2021-01-01&catalogus=${cat}`))).toEqual([z.url]);
    expect(urls(await t.call('GET', `${q}&datumGeldigheid=2020-06-01`))).toEqual([]);
    expect(urls(await t.call('GET', `${q}&objecttype=https://objecttypen.example/api/v2/objecttypes/1`))).toEqual([z.url]);
    expect((await t.call('PATCH', z.url, { relatieOmschrijving: 'anders' })).json().relatieOmschrijving).toBe('anders');
    expect((await t.call('DELETE', z.url)).statusCode).toBe(204);
  });

  it('zaaktype-informatieobjecttypen: by URL or omschrijving, filters, and the zaaktype shows the informatieobjecttype', async () => {
    const iot = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'bijlage' }));
    const byName = await create(t, 'zaaktype-informatieobjecttypen', {
      zaaktype: zt.url,
      informatieobjecttype: 'bijlage',
      volgnummer: 1,
      richting: 'inkomend',
    });
    expect(byName).toMatchObject({ informatieobjecttype: iot.url, catalogus: cat, zaaktypeIdentificatie: 'PRT-1', statustype: null });
    expect((await t.call('GET', zt.url)).json().informatieobjecttypen).toEqual([iot.url]);
    expect((await t.call('GET', iot.url)).json().zaaktypen).toEqual([zt.url]);
    const q = `${ZTC}/zaaktype-informatieobjecttypen?status=alles`;
    expect(urls(await t.call('GET', `${q}&zaaktype=${zt.url}&informatieobjecttype=${iot.url}&richting=inkomend`))).toEqual([byName.url]);
    expect(urls(await t.call('GET', `${q}&informatieobjecttype=bijlage&zaaktype=${zt.url}`))).toEqual([byName.url]);
    expect(urls(await t.call('GET', `${q}&richting=uitgaand&zaaktype=${zt.url}`))).toEqual([]);
    const put = await t.call('PUT', byName.url, { zaaktype: zt.url, informatieobjecttype: iot.url, volgnummer: 4, richting: 'intern' });
    expect(put.json()).toMatchObject({ volgnummer: 4, richting: 'intern' });
    expect((await t.call('PATCH', byName.url, { volgnummer: 5 })).json().volgnummer).toBe(5);
    const unknown = await t.call('POST', `${ZTC}/zaaktype-informatieobjecttypen`, {
      zaaktype: zt.url,
      informatieobjecttype: 'bestaat niet',
      volgnummer: 1,
      richting: 'inkomend',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().invalidParams[0]).toMatchObject({ name: 'informatieobjecttype', code: 'does_not_exist' });
    expect((await t.call('DELETE', byName.url)).statusCode).toBe(204);
    // Deleting the informatieobjecttype removes its links.
    const again = await create(t, 'zaaktype-informatieobjecttypen', {
      zaaktype: zt.url,
      informatieobjecttype: iot.url,
      volgnummer: 1,
      richting: 'inkomend',
    });
    expect((await t.call('DELETE', iot.url)).statusCode).toBe(204);
    expect((await t.call('GET', again.url)).statusCode).toBe(404);
    expect((await t.call('GET', zt.url)).json().informatieobjecttypen).toEqual([]);
  });

  it('a list page shows every zaaktype with its own parts (they are loaded for the whole page at once)', async () => {
    const own = await catalogus(t, 'PAGE');
    const made: { url: string; status: string; rol: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const z = await create(t, 'zaaktypen', zaaktypeBody(own, { identificatie: `PAGE-${i}` }));
      const s = await create(t, 'statustypen', { zaaktype: z.url, omschrijving: `s${i}`, volgnummer: 1 });
      const r = await create(t, 'roltypen', { zaaktype: z.url, omschrijving: `r${i}`, omschrijvingGeneriek: 'initiator' });
      made.push({ url: z.url, status: s.url, rol: r.url });
    }
    const page = (await t.call('GET', `${ZTC}/zaaktypen?status=alles&catalogus=${own}`)).json().results as Record<string, any>[];
    expect(page.map((z) => ({ url: z.url, status: z.statustypen[0], rol: z.roltypen[0], n: z.statustypen.length + z.roltypen.length }))).toEqual(
      made.map((m) => ({ ...m, n: 2 })),
    );
  });

  it('deleting a zaaktype removes its parts', async () => {
    const own = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'PRT-DEL' }));
    const s = await create(t, 'statustypen', { zaaktype: own.url, omschrijving: 'x', volgnummer: 1 });
    expect((await t.call('DELETE', own.url)).statusCode).toBe(204);
    expect((await t.call('GET', s.url)).statusCode).toBe(404);
  });
});

describe('resultaattypen', () => {
  let cat: string;
  let zt: Record<string, any>;
  const body = (over: Record<string, unknown> = {}) => ({
    zaaktype: zt.url,
    omschrijving: 'Afgehandeld',
    resultaattypeomschrijving: sl.omschrijving,
    selectielijstklasse: sl.resultaat.vast,
    brondatumArchiefprocedure: {
      afleidingswijze: 'afgehandeld',
      procestermijn: null,
      datumkenmerk: '',
      einddatumBekend: false,
      objecttype: '',
      registratie: '',
    },
    ...over,
  });
  beforeAll(async () => {
    cat = await catalogus(t, 'RT');
    zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'RT-1', selectielijstProcestype: sl.procestype }));
  });

  it('derives omschrijvingGeneriek, archiefnominatie and archiefactietermijn from the selectielijst; CRUD and filters', async () => {
    const r = await create(t, 'resultaattypen', body());
    expect(r).toMatchObject({
      omschrijvingGeneriek: 'Afgewezen',
      archiefnominatie: 'vernietigen',
      archiefactietermijn: 'P10Y',
      zaaktypeIdentificatie: 'RT-1',
      catalogus: cat,
    });
    const kept = await create(t, 'resultaattypen', body({ archiefnominatie: 'blijvend_bewaren', archiefactietermijn: 'P5Y' }));
    expect(kept).toMatchObject({ archiefnominatie: 'blijvend_bewaren', archiefactietermijn: 'P5Y' });
    expect(urls(await t.call('GET', `${ZTC}/resultaattypen?status=alles&zaaktype_identificatie=RT-1`))).toEqual([r.url, kept.url]);
    expect(urls(await t.call('GET', `${ZTC}/resultaattypen?status=alles&zaaktype=${zt.url}&datum_geldigheid=2020-01-01`))).toEqual([r.url, kept.url]);
    expect((await t.call('PATCH', r.url, { omschrijving: 'aangepast2' })).json().omschrijving).toBe('aangepast2');
    expect((await t.call('PUT', r.url, body({ omschrijving: 'aangepast' }))).json().omschrijving).toBe('aangepast');
    expect((await t.call('DELETE', kept.url)).statusCode).toBe(204);
  });

  it('ztc-001/002: selectielijst URLs must point at the right resource', async () => {
    const zaaktype = await t.call('POST', `${ZTC}/zaaktypen`, zaaktypeBody(cat, { identificatie: 'RT-X', selectielijstProcestype: sl.html }));
    expect(zaaktype.statusCode).toBe(400);
    expect(zaaktype.json().invalidParams[0]).toMatchObject({ name: 'selectielijstProcestype', code: 'invalid-resource' });
    const wrongType = await t.call(
      'POST',
      `${ZTC}/zaaktypen`,
      zaaktypeBody(cat, { identificatie: 'RT-X', selectielijstProcestype: sl.resultaat.vast }),
    );
    expect(wrongType.json().invalidParams[0]).toMatchObject({ name: 'selectielijstProcestype', code: 'invalid-resource' });
    const omschrijving = await t.call('POST', `${ZTC}/resultaattypen`, body({ resultaattypeomschrijving: sl.html }));
    expect(omschrijving.json().invalidParams[0]).toMatchObject({ name: 'resultaattypeomschrijving', code: 'invalid-resource' });
    const klasse = await t.call('POST', `${ZTC}/resultaattypen`, body({ selectielijstklasse: sl.html }));
    expect(klasse.json().invalidParams[0]).toMatchObject({ name: 'selectielijstklasse', code: 'invalid-resource' });
    const missing = await t.call(
      'POST',
      `${ZTC}/resultaattypen`,
      body({ selectielijstklasse: `${sl.url}/resultaten/00000000-0000-4000-8000-000000000000` }),
    );
    expect(missing.json().invalidParams[0]).toMatchObject({ name: 'selectielijstklasse', code: 'bad-url' });
    const mismatch = await t.call('POST', `${ZTC}/resultaattypen`, body({ selectielijstklasse: sl.resultaat.ander }));
    expect(mismatch.json().invalidParams[0]).toMatchObject({ name: 'nonFieldErrors', code: 'procestype-mismatch' });
  });

  it('ztc-003: the procestermijn of the selectielijstklasse prescribes the afleidingswijze', async () => {
    const termijn = { afleidingswijze: 'termijn', procestermijn: 'P5M', datumkenmerk: '', einddatumBekend: false, objecttype: '', registratie: '' };
    const nihil = await t.call(
      'POST',
      `${ZTC}/resultaattypen`,
      body({ selectielijstklasse: sl.resultaat.nihil, brondatumArchiefprocedure: termijn }),
    );
    expect(nihil.statusCode).toBe(400);
    expect(nihil.json().invalidParams).toContainEqual(
      expect.objectContaining({ name: 'nonFieldErrors', code: 'invalid-afleidingswijze-for-procestermijn' }),
    );
    expect((await t.call('POST', `${ZTC}/resultaattypen`, body({ selectielijstklasse: sl.resultaat.nihil }))).statusCode).toBe(201);
    const duur = await t.call('POST', `${ZTC}/resultaattypen`, body({ selectielijstklasse: sl.resultaat.bestaansduur }));
    expect(duur.json().invalidParams).toContainEqual(expect.objectContaining({ code: 'invalid-afleidingswijze-for-procestermijn' }));
    expect(
      (await t.call('POST', `${ZTC}/resultaattypen`, body({ selectielijstklasse: sl.resultaat.bestaansduur, brondatumArchiefprocedure: termijn })))
        .statusCode,
    ).toBe(201);
    const leeg = await t.call(
      'POST',
      `${ZTC}/resultaattypen`,
      body({ selectielijstklasse: sl.resultaat.leeg, brondatumArchiefprocedure: { ...termijn, procestermijn: null } }),
    );
    expect(leeg.json().invalidParams[0]).toMatchObject({ name: 'brondatumArchiefprocedure.procestermijn', code: 'required' });
  });

  it('ztc-004..008: brondatumArchiefprocedure fields required or empty per afleidingswijze', async () => {
    const leeg = { procestermijn: null, datumkenmerk: '', einddatumBekend: false, objecttype: '', registratie: '' };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ afleidingswijze: 'eigenschap' }, 'datumkenmerk', 'required'],
      [{ afleidingswijze: 'afgehandeld', datumkenmerk: 'x' }, 'datumkenmerk', 'must-be-empty'],
      [{ afleidingswijze: 'termijn', procestermijn: 'P1Y', einddatumBekend: true }, 'einddatumBekend', 'must-be-empty'],
      [{ afleidingswijze: 'zaakobject', datumkenmerk: 'x' }, 'objecttype', 'required'],
      [{ afleidingswijze: 'hoofdzaak', objecttype: 'pand' }, 'objecttype', 'must-be-empty'],
      [{ afleidingswijze: 'ander_datumkenmerk', datumkenmerk: 'x', objecttype: 'pand' }, 'registratie', 'required'],
      [{ afleidingswijze: 'zaakobject', datumkenmerk: 'x', objecttype: 'pand', registratie: 'r' }, 'registratie', 'must-be-empty'],
      [{ afleidingswijze: 'termijn' }, 'procestermijn', 'required'],
      [{ afleidingswijze: 'vervaldatum_besluit', procestermijn: 'P1Y' }, 'procestermijn', 'must-be-empty'],
    ];
    for (const [b, field, code] of cases) {
      const res = await t.call('POST', `${ZTC}/resultaattypen`, body({ brondatumArchiefprocedure: { ...leeg, ...b } }));
      expect({ status: res.statusCode, first: res.json().invalidParams?.[0] }).toEqual({
        status: 400,
        first: expect.objectContaining({ name: `brondatumArchiefprocedure.${field}`, code }),
      });
    }
    const ok = await t.call(
      'POST',
      `${ZTC}/resultaattypen`,
      body({
        brondatumArchiefprocedure: {
          ...leeg,
          afleidingswijze: 'ander_datumkenmerk',
          datumkenmerk: 'x',
          objecttype: 'pand',
          registratie: 'r',
          einddatumBekend: true,
        },
      }),
    );
    expect(ok.statusCode).toBe(201);
  });
});
