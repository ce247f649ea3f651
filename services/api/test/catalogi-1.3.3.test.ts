import { parse } from 'yaml';
import { startApp, type TestApp } from './harness';
import { ZTC, besluittypeBody, catalogus, create, iotBody, zaaktypeBody } from './catalogi.fixtures';

/**
 * The Catalogi API serves 1.3.1 by default and 1.3.3 on request (`Api-Version`), over the same stored types: 1.3.3
 * names the related types beside their URLs, expands link fields (`expand`), updates catalogussen and creates a
 * zaaktype without a versiedatum; it no longer shows a statustype's zaakobjecttype.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const V133 = { 'api-version': '1.3' };
const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await t.call('GET', url, undefined, { headers });
  expect(res.statusCode).toBe(200);
  return { body: res.json() as Record<string, any>, version: res.headers['api-version'] };
};

describe('Catalogi 1.3.3 beside 1.3.1', () => {
  let cat: string;
  let zaaktype: Record<string, any>;
  let besluittype: Record<string, any>;
  let iot: Record<string, any>;
  let statustype: Record<string, any>;
  let zaakobjecttype: Record<string, any>;

  beforeAll(async () => {
    cat = await catalogus(t, 'V133');
    besluittype = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'vergunning' }));
    iot = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'bijlage' }));
    zaaktype = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'ZT-133', besluittypen: ['vergunning'] }));
    await create(t, 'zaaktype-informatieobjecttypen', { zaaktype: zaaktype.url, informatieobjecttype: iot.url, volgnummer: 1, richting: 'inkomend' });
    statustype = await create(t, 'statustypen', { zaaktype: zaaktype.url, omschrijving: 'Ontvangen', volgnummer: 1 });
    zaakobjecttype = await create(t, 'zaakobjecttypen', {
      zaaktype: zaaktype.url,
      catalogus: cat,
      anderObjecttype: false,
      objecttype: 'https://objecttypen.example/api/v2/objecttypes/1',
      relatieOmschrijving: 'locatie',
      beginGeldigheid: '2020-01-01',
      statustypen: [statustype.url],
    });
  });

  it('answers in the version asked for, and names it in API-version', async () => {
    expect((await get(zaaktype.url)).version).toBe('1.3.1');
    for (const asked of ['1.3', '1.3.3']) expect((await get(zaaktype.url, { 'api-version': asked })).version).toBe('1.3.3');
    const refused = await t.call('GET', zaaktype.url, undefined, { headers: { 'api-version': '1.3.2' } });
    expect(refused.statusCode).toBe(406);
  });

  it('serves the document of each version', async () => {
    const doc = async (path: string) => parse((await t.call('GET', `${ZTC}/schema/${path}`)).body);
    const d131 = await doc('1.3.1/openapi.yaml');
    const d133 = await doc('1.3.3/openapi.yaml');
    expect(d131.info.version).toBe('1.3.1');
    expect(d133.info.version).toBe('1.3.3');
    expect(d131.paths['/catalogussen/{uuid}'].patch).toBeUndefined();
    expect(d133.paths['/catalogussen/{uuid}'].patch.operationId).toBe('catalogus_partial_update');
    expect(d133.components.schemas.ZaakTypeExpanded.properties._expand.$ref).toBe('#/components/schemas/ZaakTypeEmbedded');
  });

  it('names the related types beside their URLs in 1.3.3 only', async () => {
    const zt = (await get(zaaktype.url, V133)).body;
    expect(zt.besluittypen).toEqual([besluittype.url]);
    expect(zt.besluittypeOmschrijving).toEqual(['vergunning']);
    expect(zt.informatieobjecttypeOmschrijving).toEqual(['bijlage']);
    expect(zt.deelzaaktypeIdentificaties).toEqual([]);
    expect((await get(zaaktype.url)).body).not.toHaveProperty('besluittypeOmschrijving');

    const bt = (await get(besluittype.url, V133)).body;
    expect(bt.zaaktypeIdentificaties).toEqual(['ZT-133']);
    const it = (await get(iot.url, V133)).body;
    expect(it.zaaktypeIdentificaties).toEqual(['ZT-133']);
    const c = (await get(cat, V133)).body;
    expect(c.besluittypeOmschrijving).toEqual(['vergunning']);
    expect(c.informatieobjecttypeOmschrijving).toEqual(['bijlage']);
  });

  it("shows a statustype's zaakobjecttype in 1.3.1 only", async () => {
    expect((await get(statustype.url)).body.zaakobjecttype).toBe(zaakobjecttype.url);
    expect((await get(statustype.url, V133)).body).not.toHaveProperty('zaakobjecttype');
  });

  it('expands link fields to nested levels in 1.3.3, on details and lists', async () => {
    const zt = (await get(`${zaaktype.url}?expand=catalogus,statustypen.zaaktype,besluittypen`, V133)).body;
    expect(zt._expand.catalogus.url).toBe(cat);
    expect(zt._expand.besluittypen.map((b: any) => b.url)).toEqual([besluittype.url]);
    expect(zt._expand.statustypen[0].url).toBe(statustype.url);
    expect(zt._expand.statustypen[0]._expand.zaaktype.url).toBe(zaaktype.url);

    const list = (await get(`${ZTC}/statustypen?zaaktype=${encodeURIComponent(zaaktype.url)}&status=alles&expand=zaaktype`, V133)).body;
    expect(list.results[0]._expand.zaaktype.identificatie).toBe('ZT-133');
  });

  it('refuses an expand of something that is no link field, and the parameter in 1.3.1', async () => {
    const bad = await t.call('GET', `${zaaktype.url}?expand=omschrijving`, undefined, { headers: V133 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().invalidParams[0]).toMatchObject({ name: 'expand', code: 'invalid-expand-field' });
    const old = await t.call('GET', `${zaaktype.url}?expand=catalogus`);
    expect(old.statusCode).toBe(400);
    expect(old.json().invalidParams[0].name).toBe('expand');
  });

  it('updates a catalogus in 1.3.3 and refuses it in 1.3.1', async () => {
    const old = await t.call('PATCH', cat, { naam: 'Nieuw' });
    expect(old.statusCode).toBe(405);
    const patched = await t.call('PATCH', cat, { naam: 'Nieuw' }, { headers: V133 });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().naam).toBe('Nieuw');
    const put = await t.call('PUT', cat, { domein: 'V133', rsin: '000000000', contactpersoonBeheerNaam: 'Ander' }, { headers: V133 });
    expect(put.statusCode).toBe(200);
    expect((await get(cat)).body.contactpersoonBeheerNaam).toBe('Ander');
    const invalid = await t.call('PUT', cat, { domein: 'V133' }, { headers: V133 });
    expect(invalid.statusCode).toBe(400);
  });

  it('creates a zaaktype without a versiedatum in 1.3.3 only', async () => {
    const body = zaaktypeBody(cat, { identificatie: 'ZT-ZONDER', versiedatum: undefined, beginGeldigheid: '2021-03-01' });
    expect((await t.call('POST', `${ZTC}/zaaktypen`, body)).statusCode).toBe(400);
    const res = await t.call('POST', `${ZTC}/zaaktypen`, body, { headers: V133 });
    expect(res.statusCode).toBe(201);
    expect(res.json().versiedatum).toBe('2021-03-01');
  });
});
