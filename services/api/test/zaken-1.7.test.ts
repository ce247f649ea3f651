import { create, publish, startReferentielijsten, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';
import { createEio, eioBody } from './documenten.fixtures';
import { besluitBody, besluittypeMetDocumenttype, createB } from './besluiten.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody } from './zaken.fixtures';

/**
 * The Zaken API serves 1.5.1 by default and 1.7.0 on request (`Api-Version`), over the same stored zaken: 1.7 expands
 * on the parts of a zaak too, to any depth and into documents and besluiten (404 for a path that names no field,
 * zrc-027), chooses the fields of a `_zoek` answer (zrc-029), reserves zaaknummers and keeps notes on a zaak.
 */

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

const V17 = { ...CRS, 'api-version': '1.7' };
const BSN = '111222333';
const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = V17, tok?: string) =>
  t.call(method, url.startsWith('http') ? url : `${ZRC}${url}`, body, { headers, ...(tok ? { token: tok } : {}) });

describe('Zaken 1.7.0 beside 1.5.1', () => {
  let zaaktype: string;
  let zaak: Record<string, any>;
  let rol: Record<string, any>;
  let eio: Record<string, any>;
  let besluit: Record<string, any>;

  beforeAll(async () => {
    const setup = await besluittypeMetDocumenttype(t);
    const zt = await create(t, 'zaaktypen', zaaktypeBody(setup.catalogus, { selectielijstProcestype: sl.procestype, besluittypen: ['vergunning'] }));
    await create(t, 'zaaktype-informatieobjecttypen', {
      zaaktype: zt.url,
      informatieobjecttype: 'besluitdocument',
      volgnummer: 1,
      richting: 'inkomend',
    });
    const begin = await create(t, 'statustypen', { zaaktype: zt.url, omschrijving: 'begin', volgnummer: 1 });
    await create(t, 'statustypen', { zaaktype: zt.url, omschrijving: 'eind', volgnummer: 2 });
    const roltype = await create(t, 'roltypen', { zaaktype: zt.url, omschrijving: 'Initiator', omschrijvingGeneriek: 'initiator' });
    await publish(t, zt.url);
    zaaktype = zt.url;
    zaak = await createZ(t, 'zaken', zaakBody(zaaktype));
    rol = await createZ(t, 'rollen', {
      zaak: zaak.url,
      betrokkeneType: 'natuurlijk_persoon',
      roltype: roltype.url,
      roltoelichting: 'aanvrager',
      betrokkeneIdentificatie: { inpBsn: BSN },
    });
    await createZ(t, 'statussen', { zaak: zaak.url, statustype: begin.url, datumStatusGezet: '2024-03-01T10:00:00Z' });
    eio = await createEio(t, eioBody(setup.informatieobjecttype, { titel: 'Aanvraagformulier' }));
    await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: eio.url });
    besluit = await createB(t, 'besluiten', besluitBody(setup.besluittype, { zaak: zaak.url }));
  });

  it('answers in the version asked for and lists every version on GET /', async () => {
    expect((await call('GET', zaak.url)).headers['api-version']).toBe('1.7.0');
    expect((await call('GET', zaak.url, undefined, CRS)).headers['api-version']).toBe('1.5.1');
    const root = (await t.call('GET', '/', undefined, { token: null })).json();
    expect(root.versions).toMatchObject({ zaken: ['1.5.1', '1.7.0'], besluiten: ['1.0.2', '1.1.0'], catalogi: ['1.3.1', '1.3.3'] });
  });

  it('expands on the parts of a zaak, to any depth, into documents and besluiten', async () => {
    const res = await call('GET', `${rol.url}?expand=zaak.zaakinformatieobjecten.informatieobject,zaak.zaaktype`);
    expect(res.statusCode).toBe(200);
    const viaZaak = res.json()._expand.zaak;
    expect(viaZaak.url).toBe(zaak.url);
    expect(viaZaak._expand.zaaktype.url).toBe(zaaktype);
    expect(viaZaak._expand.zaakinformatieobjecten[0]._expand.informatieobject).toMatchObject({ url: eio.url, titel: 'Aanvraagformulier' });

    const list = (await call('GET', `/statussen?zaak=${encodeURIComponent(zaak.url)}&expand=zaak.rollen`)).json();
    expect(list.results[0]._expand.zaak._expand.rollen[0].url).toBe(rol.url);

    const besluiten = (await call('GET', `${zaak.url}/besluiten?expand=besluit`)).json();
    expect(besluiten[0]._expand.besluit).toMatchObject({ url: besluit.url, zaak: zaak.url });
  });

  it('answers 404 for an expand that names no field (zrc-027), and keeps 1.5.1 within Zaken and Catalogi (zrc-025)', async () => {
    expect((await call('GET', `${rol.url}?expand=onzin`)).statusCode).toBe(404);
    expect((await call('GET', `${zaak.url}?expand=rollen.onzin`)).statusCode).toBe(404);
    const old = await call('GET', `${zaak.url}?expand=zaakinformatieobjecten.informatieobject`, undefined, CRS);
    expect(old.statusCode).toBe(400);
    expect(old.json().invalidParams[0].name).toBe('expand');
    const now = (await call('GET', `${zaak.url}?expand=zaakinformatieobjecten.informatieobject`)).json();
    expect(now._expand.zaakinformatieobjecten[0]._expand.informatieobject.url).toBe(eio.url);
  });

  it('answers 404 for an expansion of another registration that cannot be fetched (zrc-028)', async () => {
    const weg = await call('POST', '/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: `${sl.url}/panden/weg` });
    expect(weg.statusCode).toBe(201);
    const res = await call('GET', `${weg.json().url}?expand=object`);
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toContain('/panden/weg');
    const pand = sl.add('panden/er', { identificatie: '0599100000000001' });
    const er = await call('POST', '/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: pand });
    expect((await call('GET', `${er.json().url}?expand=object`)).json()._expand.object.identificatie).toBe('0599100000000001');
  });

  it('chooses the fields of a _zoek answer, which asks for their expansion (zrc-029)', async () => {
    const fields = ['url', 'identificatie', { rollen: ['betrokkeneType'] }, { zaakinformatieobjecten: [{ informatieobject: ['titel'] }] }];
    const res = await call('POST', '/zaken/_zoek', { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: BSN, fields });
    expect(res.statusCode).toBe(200);
    const [found] = res.json().results;
    expect(Object.keys(found).sort()).toEqual(['_expand', 'identificatie', 'url']);
    expect(found._expand.rollen).toEqual([{ betrokkeneType: 'natuurlijk_persoon' }]);
    expect(found._expand.zaakinformatieobjecten[0]._expand.informatieobject).toEqual({ titel: 'Aanvraagformulier' });

    // "*" keeps every field of its level, and the levels below are chosen on their own
    const all = ['*', { rollen: ['*'] }, { zaakinformatieobjecten: ['url', { informatieobject: ['*'] }] }];
    const [whole] = (await call('POST', '/zaken/_zoek', { uuid__in: [zaak.uuid], fields: all })).json().results;
    expect(whole).toMatchObject({ url: zaak.url, identificatie: zaak.identificatie, startdatum: zaak.startdatum, rollen: [rol.url] });
    expect(whole._expand.rollen).toEqual([expect.objectContaining({ url: rol.url, betrokkeneType: 'natuurlijk_persoon' })]);
    expect(Object.keys(whole._expand.zaakinformatieobjecten[0]).sort()).toEqual(['_expand', 'url']);
    expect(whole._expand.zaakinformatieobjecten[0]._expand.informatieobject).toMatchObject({ url: eio.url, titel: 'Aanvraagformulier' });

    const both = await call('POST', '/zaken/_zoek?expand=rollen', { uuid__in: [zaak.uuid], fields: ['url'] });
    expect(both.statusCode).toBe(400);
    expect(both.json().invalidParams[0]).toMatchObject({ name: 'fields', code: 'fields-en-expand' });
    const unknown = await call('POST', '/zaken/_zoek', { uuid__in: [zaak.uuid], fields: ['onzin'] });
    expect(unknown.json().invalidParams[0]).toMatchObject({ name: 'fields', code: 'invalid-fields' });
    expect((await call('POST', '/zaken/_zoek', { uuid__in: [zaak.uuid], fields: ['url'] }, CRS)).statusCode).toBe(400);
    const expanded = (await call('POST', '/zaken/_zoek?expand=rollen', { uuid__in: [zaak.uuid] })).json();
    expect(expanded.results[0]._expand.rollen[0].url).toBe(rol.url);
  });

  it('reserves zaaknummers that are never handed out automatically and that a new zaak may take', async () => {
    const one = await call('POST', '/zaaknummer_reserveren', { bronorganisatie: '000000000' });
    expect(one.statusCode).toBe(201);
    const [{ zaaknummer }] = one.json();
    expect(zaaknummer).toMatch(/^ZAAK-\d{4}-\d{10}$/);
    const more = (await call('POST', '/zaaknummer_reserveren', { bronorganisatie: '000000000', aantal: 3 })).json();
    expect(new Set(more.map((r: { zaaknummer: string }) => r.zaaknummer)).size).toBe(3);
    for (const aantal of [0, -1])
      expect((await call('POST', '/zaaknummer_reserveren', { bronorganisatie: '000000000', aantal })).statusCode).toBe(400);
    expect((await call('POST', '/zaaknummer_reserveren', { bronorganisatie: '000000000' }, CRS)).statusCode).toBe(405);

    const automatic = await createZ(t, 'zaken', zaakBody(zaaktype, { startdatum: new Date().toISOString().slice(0, 10) }));
    expect([zaaknummer, ...more.map((r: { zaaknummer: string }) => r.zaaknummer)]).not.toContain(automatic.identificatie);
    const taken = await createZ(t, 'zaken', zaakBody(zaaktype, { identificatie: zaaknummer }));
    expect(taken.identificatie).toBe(zaaknummer);
    expect((await call('POST', '/zaken', zaakBody(zaaktype, { identificatie: zaaknummer }))).statusCode).toBe(400);
  });

  it('keeps notes on a zaak for whoever may read it', async () => {
    expect((await call('POST', '/zaaknotities', { gerelateerdAan: zaak.url, onderwerp: 'Bel terug', tekst: 'x' }, CRS)).statusCode).toBe(405);
    const created = await call('POST', '/zaaknotities', { gerelateerdAan: zaak.url, onderwerp: 'Bel terug', tekst: 'Graag voor vrijdag.' });
    expect(created.statusCode).toBe(201);
    const notitie = created.json();
    expect(notitie).toMatchObject({ gerelateerdAan: zaak.url, notitieType: 'intern', status: 'concept', aangemaaktDoor: '' });
    expect(notitie).not.toHaveProperty('zaak');
    expect(notitie.aanmaakdatum).toBe(notitie.wijzigingsdatum);

    const found = (await call('GET', `/zaaknotities?gerelateerdAan=${encodeURIComponent(zaak.url)}&onderwerp__icontains=BEL`)).json();
    expect(found.results.map((n: { url: string }) => n.url)).toEqual([notitie.url]);
    expect((await call('GET', `/zaaknotities?gerelateerdAan=${encodeURIComponent(zaak.url)}&tekst__icontains=niets`)).json().count).toBe(0);
    const everywhere = await call('GET', '/zaaknotities?onderwerp__icontains=bel');
    expect(everywhere.statusCode).toBe(400);
    expect(everywhere.json().invalidParams[0]).toMatchObject({ name: 'gerelateerdAan', code: 'required' });
    expect((await call('GET', '/zaaknotities?notitieType=intern')).json().count).toBe(1);

    const patched = (await call('PATCH', notitie.url, { status: 'definitief' })).json();
    expect(patched).toMatchObject({ status: 'definitief', aanmaakdatum: notitie.aanmaakdatum });
    expect(patched.wijzigingsdatum >= notitie.wijzigingsdatum).toBe(true);

    // a client of another zaaktype neither sees nor writes notes on this zaak
    await t.client('notitie-vreemde', 'vreemde-secret');
    await t.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: ['notitie-vreemde'],
      label: 'vreemde',
      autorisaties: [
        {
          component: 'zrc',
          scopes: ['zaken.lezen', 'zaken.bijwerken'],
          zaaktype: 'https://elders.example/zaaktypen/1',
          maxVertrouwelijkheidaanduiding: 'geheim',
        },
      ],
    });
    const vreemde = token('notitie-vreemde', 'vreemde-secret');
    expect((await call('GET', notitie.url, undefined, V17, vreemde)).statusCode).toBe(403);
    expect((await call('GET', '/zaaknotities', undefined, V17, vreemde)).json().count).toBe(0);
    expect((await call('POST', '/zaaknotities', { gerelateerdAan: zaak.url, onderwerp: 'x', tekst: 'y' }, V17, vreemde)).statusCode).toBe(403);
    expect((await call('POST', '/zaaknotities', { gerelateerdAan: `${zaak.url}x`, onderwerp: 'x', tekst: 'y' })).statusCode).toBe(400);

    expect((await call('DELETE', notitie.url)).statusCode).toBe(204);
    expect((await call('GET', notitie.url)).statusCode).toBe(404);
  });

  it("takes a person zaakobject's identificatie by either name, and answers both in 1.7", async () => {
    const zo = await call('POST', '/zaakobjecten', { zaak: zaak.url, objectType: 'natuurlijk_persoon', betrokkeneIdentificatie: { inpBsn: BSN } });
    expect(zo.statusCode).toBe(201);
    const now = (await call('GET', zo.json().url)).json();
    expect(now.objectIdentificatie.inpBsn).toBe(BSN);
    expect(now.betrokkeneIdentificatie.inpBsn).toBe(BSN);
    const old = (await call('GET', zo.json().url, undefined, CRS)).json();
    expect(old.objectIdentificatie.inpBsn).toBe(BSN);
    expect(old).not.toHaveProperty('betrokkeneIdentificatie');
  });

  it("takes an address's identificatie as aoaIdentificatie or oaoIdentificatie, and refuses neither", async () => {
    const adres = { wplWoonplaatsNaam: 'Utrecht', gorOpenbareRuimteNaam: 'Dom', aoaHuisnummer: 1 };
    const body = (a: Record<string, unknown>) => ({
      zaak: zaak.url,
      objectType: 'terrein_gebouwd_object',
      objectIdentificatie: { identificatie: 'T1', adresAanduidingGrp: { ...adres, ...a } },
    });
    expect((await call('POST', '/zaakobjecten', body({ aoaIdentificatie: 'A1' }))).statusCode).toBe(201);
    expect((await call('POST', '/zaakobjecten', body({ oaoIdentificatie: 'A1' }), CRS)).statusCode).toBe(201);
    const neither = await call('POST', '/zaakobjecten', body({}));
    expect(neither.statusCode).toBe(400);
  });

  it('reads a zaak written through 1.7 through 1.5.1, and the other way round', async () => {
    const written = await call('POST', '/zaken', zaakBody(zaaktype, { omschrijving: 'via 1.7' }));
    expect(written.statusCode).toBe(201);
    const old = (await call('GET', written.json().url, undefined, CRS)).json();
    expect(old).toEqual(written.json());
    const patched = await call('PATCH', written.json().url, { omschrijving: 'via 1.5.1' }, CRS);
    expect((await call('GET', written.json().url)).json()).toEqual(patched.json());
  });

  it('serves Besluiten 1.1.0 with its expand', async () => {
    const res = await t.call('GET', `${besluit.url}?expand=zaak`, undefined, { headers: { 'api-version': '1.1' } });
    expect(res.headers['api-version']).toBe('1.1.0');
    expect(res.json()._expand.zaak.url).toBe(zaak.url);
  });
});
