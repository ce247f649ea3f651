import { catalogus, create, iotBody, publish, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { DRC, EIO, createEio, eioBody, lock, zaaktypeMetBijlage } from './documenten.fixtures';
import { startApp, type TestApp } from './harness';
import { ZRC, createZ, zaakBody } from './zaken.fixtures';

/**
 * The Documenten API serves 1.5.0 by default and 1.7.0 on request (`Api-Version`), over the same stored documents:
 * 1.5.0 shows and writes all but the 1.7.0 fields, which its writes leave as they are.
 */
let t: TestApp;
let sl: Referentielijsten;
let iot: string;
let zaaktype: string;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  ({ zaaktype, iot } = await zaaktypeMetBijlage(t, sl));
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const V17 = { 'api-version': '1.7' };
const as17 = (method: string, url: string, body?: unknown) => t.call(method, url, body, { headers: V17 });
const param = (res: { json(): any }) => (res.json().invalidParams as { name: string; code: string }[])[0];
const NEW_FIELDS = ['isGereedVoorPublicatie', 'tonenAanInitiator'];

describe('choosing the version', () => {
  it('serves 1.5.0 without a header, for 1, 1.5 and 1.5.0; 1.7.0 for 1.7 and 1.7.0', async () => {
    const eio = await createEio(t, eioBody(iot));
    const cases: [Record<string, string>, string][] = [
      [{}, '1.5.0'],
      [{ 'api-version': '1' }, '1.5.0'],
      [{ 'api-version': '1.5' }, '1.5.0'],
      [{ 'api-version': '1.5.0' }, '1.5.0'],
      [{ 'api-version': '1.7' }, '1.7.0'],
      [{ 'api-version': ' 1.7.0 ' }, '1.7.0'],
    ];
    for (const [headers, version] of cases) {
      const res = await t.call('GET', eio.url, undefined, { headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['api-version']).toBe(version);
      for (const f of NEW_FIELDS) expect(f in res.json()).toBe(version === '1.7.0');
    }
  });

  it('answers an unsupported version with a 406 that lists the served ones, on every path', async () => {
    for (const asked of ['1.6', '1.6.0', '1.7.1', '1.4', '2', '0', 'latest', '1.7-beta']) {
      for (const [method, url] of [
        ['GET', EIO],
        ['POST', `${EIO}/_zoek`],
        ['GET', `${DRC}/gebruiksrechten`],
        ['GET', `${DRC}/schema/openapi.json`],
        ['GET', `${DRC}/bestaat-niet`],
      ]) {
        const res = await t.call(method!, url!, method === 'POST' ? { uuid__in: [] } : undefined, { headers: { 'api-version': asked } });
        expect(res.statusCode).toBe(406);
        expect(res.headers['content-type']).toMatch(/problem\+json/);
        expect(res.headers['api-version']).toBe('1.5.0');
        expect(res.json()).toMatchObject({ status: 406, code: 'unsupported-api-version' });
        expect(res.json().detail).toContain('1.5.0, 1.7.0');
      }
    }
    // A component that serves one version does not read the header.
    expect((await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { headers: { 'api-version': '9.9' } })).statusCode).toBe(200);
  });

  it('serves the OpenAPI document of each version, each linking the other', async () => {
    const v15 = (await t.call('GET', `${DRC}/schema/openapi.json`, undefined, { token: null })).json();
    const v17 = (await t.call('GET', `${DRC}/schema/openapi.json`, undefined, { token: null, headers: V17 })).json();
    expect(v15.info.version).toBe('1.5.0');
    expect(v17.info.version).toBe('1.7.0');
    expect(v15.info.description).toContain('/documenten/api/v1/schema/1.7.0/openapi.yaml');
    expect(v17.info.description).toContain('/documenten/api/v1/schema/1.5.0/openapi.yaml');
    const eioSchema = (doc: any) => doc.components.schemas.EnkelvoudigInformatieObject.properties;
    for (const f of NEW_FIELDS) {
      expect(eioSchema(v15)[f]).toBeUndefined();
      expect(eioSchema(v17)[f]).toBeDefined();
      expect(v17.components.schemas.EnkelvoudigInformatieObjectCreateLockRequest.properties[f]).toBeDefined();
    }
    // No schema keeps its internal version mark.
    expect(JSON.stringify(v17)).not.toMatch(/@1\.7\.0/);
    const listParams = (doc: any) => doc.paths['/enkelvoudiginformatieobjecten'].get.parameters.map((p: { name: string }) => p.name);
    expect(listParams(v17)).toEqual(
      expect.arrayContaining(['objectinformatieobjecten_object', 'objectinformatieobjecten_objectType', 'trefwoorden']),
    );
    expect(listParams(v15)).not.toContain('objectinformatieobjecten_object');
    // As the 1.7.0 file declares the `_zoek` body: uuid__in required, no `fields` (which the server takes all the same).
    expect(v17.components.schemas.EIOZoekRequest.required).toEqual(['uuid__in']);
    expect(v17.components.schemas.EIOZoekRequest.properties.fields).toBeUndefined();

    const yaml = await t.call('GET', `${DRC}/schema/1.7.0/openapi.yaml`, undefined, { token: null });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.headers['content-type']).toMatch(/yaml/);
    expect(yaml.body).toMatch(/version: 1\.7\.0/);
    expect((await t.call('GET', `${DRC}/schema/1.5.0/openapi.json`, undefined, { token: null })).json().info.version).toBe('1.5.0');
    expect((await t.call('GET', `${DRC}/schema/1.6.0/openapi.json`, undefined, { token: null })).statusCode).toBe(404);
    const root = (await t.call('GET', '/', undefined, { token: null })).json();
    expect(root.components.documenten).toBe('1.5.0');
    expect(root.versions.documenten).toEqual(['1.5.0', '1.7.0']);
  });
});

describe('the 1.7 fields', () => {
  it('are false on a new document unless given, and shown only in 1.7', async () => {
    const plain = await createEio(t, eioBody(iot));
    expect(plain).not.toHaveProperty('isGereedVoorPublicatie');
    expect((await as17('GET', plain.url)).json()).toMatchObject({ isGereedVoorPublicatie: false, tonenAanInitiator: false, trefwoorden: [] });

    const res = await as17('POST', EIO, eioBody(iot, { isGereedVoorPublicatie: true, tonenAanInitiator: true, trefwoorden: ['a', 'b'] }));
    expect(res.statusCode).toBe(201);
    expect(res.headers['api-version']).toBe('1.7.0');
    expect(res.json()).toMatchObject({ isGereedVoorPublicatie: true, tonenAanInitiator: true, trefwoorden: ['a', 'b'] });
    const v15 = (await t.call('GET', res.json().url)).json();
    for (const f of NEW_FIELDS) expect(v15).not.toHaveProperty(f);
    expect(v15.trefwoorden).toEqual(['a', 'b']);

    // isGereedVoorPublicatie may be null (not known yet).
    const unknown = await as17('POST', EIO, eioBody(iot, { isGereedVoorPublicatie: null }));
    expect(unknown.json().isGereedVoorPublicatie).toBeNull();
  });

  it('are left as they are by 1.5 writes, which cannot set them', async () => {
    const eio = (await as17('POST', EIO, eioBody(iot, { isGereedVoorPublicatie: true, tonenAanInitiator: true }))).json();
    let l = await lock(t, eio.url);
    const patched = await t.call('PATCH', eio.url, { titel: 'Nieuwe titel', isGereedVoorPublicatie: false, lock: l });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).not.toHaveProperty('isGereedVoorPublicatie');
    const put = await t.call('PUT', eio.url, { ...eioBody(iot, { titel: 'Heel nieuw' }), lock: l });
    expect(put.statusCode).toBe(200);
    expect((await as17('GET', eio.url)).json()).toMatchObject({
      titel: 'Heel nieuw',
      versie: 3,
      isGereedVoorPublicatie: true,
      tonenAanInitiator: true,
    });
    // A 1.5 create takes the defaults, whatever its body says.
    const created = (await t.call('POST', EIO, eioBody(iot, { isGereedVoorPublicatie: true, tonenAanInitiator: true }))).json();
    expect((await as17('GET', created.url)).json()).toMatchObject({ isGereedVoorPublicatie: false, tonenAanInitiator: false });

    // In 1.7, PATCH sets them and trefwoorden; PUT without them takes the defaults.
    const p17 = await as17('PATCH', eio.url, { isGereedVoorPublicatie: false, tonenAanInitiator: false, trefwoorden: ['x'], lock: l });
    expect(p17.json()).toMatchObject({ isGereedVoorPublicatie: false, tonenAanInitiator: false, trefwoorden: ['x'], versie: 4 });
    await as17('PATCH', eio.url, { isGereedVoorPublicatie: true, tonenAanInitiator: true, lock: l });
    const put17 = await as17('PUT', eio.url, { ...eioBody(iot), lock: l });
    expect(put17.json()).toMatchObject({ isGereedVoorPublicatie: false, tonenAanInitiator: false, versie: 6 });
    await t.call('POST', `${eio.url}/unlock`, { lock: l });

    // Earlier versions show their own values.
    expect((await as17('GET', `${eio.url}?versie=5`)).json()).toMatchObject({ versie: 5, isGereedVoorPublicatie: true, tonenAanInitiator: true });
    expect((await as17('GET', `${eio.url}?versie=4`)).json()).toMatchObject({ versie: 4, isGereedVoorPublicatie: false, trefwoorden: ['x'] });
    expect((await t.call('GET', `${eio.url}?versie=5`)).json()).not.toHaveProperty('isGereedVoorPublicatie');
    l = await lock(t, eio.url);
    await t.call('POST', `${eio.url}/unlock`, { lock: l });
  });

  it('refuses bad values with a 400 that names the field', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ isGereedVoorPublicatie: 'ja' }, 'isGereedVoorPublicatie', 'invalid'],
      [{ tonenAanInitiator: null }, 'tonenAanInitiator', 'null'],
      [{ tonenAanInitiator: 1 }, 'tonenAanInitiator', 'invalid'],
      [{ trefwoorden: 'a,b' }, 'trefwoorden', 'not_a_list'],
      [{ trefwoorden: null }, 'trefwoorden', 'null'],
      [{ trefwoorden: [''] }, 'trefwoorden.0', 'blank'],
      [{ trefwoorden: ['x'.repeat(101)] }, 'trefwoorden.0', 'max_length'],
      // 1.7's StatusEnum has four values.
      [{ status: 'concept' }, 'status', 'invalid'],
    ];
    for (const [over, name, code] of cases) {
      const res = await as17('POST', EIO, eioBody(iot, over));
      expect(res.statusCode).toBe(400);
      expect(param(res)).toMatchObject({ name, code });
    }
    const eio = await createEio(t, eioBody(iot));
    const l = await lock(t, eio.url);
    const res = await as17('PATCH', eio.url, { isGereedVoorPublicatie: 'nee', lock: l });
    expect(res.statusCode).toBe(400);
    expect(param(res).name).toBe('isGereedVoorPublicatie');
    expect((await as17('GET', eio.url)).json()).toMatchObject({ versie: 1, isGereedVoorPublicatie: false });
    expect((await t.call('POST', EIO, eioBody(iot, { status: 'concept' }))).statusCode).toBe(201);
    // In 1.5 the fields are unknown, so nothing to refuse: the write leaves them as they are.
    expect((await t.call('PATCH', eio.url, { isGereedVoorPublicatie: 'nee', lock: l })).statusCode).toBe(200);
  });
});

describe('1.7 lists and _zoek', () => {
  it('filter by the objects a document is linked to, and by trefwoorden', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(zaaktype));
    const other = await createZ(t, 'zaken', zaakBody(zaaktype));
    const a = await createEio(t, eioBody(iot, { trefwoorden: ['zaakstuk-17', 'bijlage-17'] }));
    const b = await createEio(t, eioBody(iot, { trefwoorden: ['zaakstuk-17'] }));
    const c = await createEio(t, eioBody(iot));
    for (const [z, doc] of [
      [zaak, a],
      [zaak, b],
      [other, b],
    ] as const) {
      await createZ(t, 'zaakinformatieobjecten', { zaak: z.url, informatieobject: doc.url });
    }
    const urls = async (q: string) => {
      const res = await as17('GET', `${EIO}?${q}`);
      expect(res.statusCode).toBe(200);
      return { urls: (res.json().results as { url: string }[]).map((r) => r.url), count: res.json().count };
    };
    const byZaak = `objectinformatieobjecten_object=${encodeURIComponent(zaak.url)}`;
    expect(await urls(byZaak)).toEqual({ urls: [a.url, b.url], count: 2 });
    expect(await urls(`objectinformatieobjecten_object=${encodeURIComponent(other.url)}&objectinformatieobjecten_objectType=zaak`)).toEqual({
      urls: [b.url],
      count: 1,
    });
    expect((await urls(`${byZaak}&objectinformatieobjecten_objectType=besluit`)).urls).toEqual([]);
    expect((await urls('objectinformatieobjecten_objectType=zaak')).urls).toEqual(expect.arrayContaining([a.url, b.url]));
    expect((await urls('objectinformatieobjecten_objectType=zaak')).urls).not.toContain(c.url);
    expect(await urls('trefwoorden=bijlage-17,zaakstuk-17')).toEqual({ urls: [a.url], count: 1 });
    expect(await urls('trefwoorden=zaakstuk-17')).toEqual({ urls: [a.url, b.url], count: 2 });
    expect(param(await as17('GET', `${EIO}?objectinformatieobjecten_objectType=dossier`))).toMatchObject({
      name: 'objectinformatieobjecten_objectType',
      code: 'invalid_choice',
    });
    expect(param(await as17('GET', `${EIO}?objectinformatieobjecten_object=geen-url`)).name).toBe('objectinformatieobjecten_object');

    // A link removed in the Zaken API leaves the filter.
    const zios = (await t.call('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(other.url)}`)).json();
    expect((await t.call('DELETE', zios[0].url)).statusCode).toBe(204);
    expect((await urls(`objectinformatieobjecten_object=${encodeURIComponent(other.url)}`)).urls).toEqual([]);
    expect((await urls(byZaak)).urls).toEqual([a.url, b.url]);
  });

  it('_zoek expands and returns the fields asked for', async () => {
    const a = await createEio(t, eioBody(iot, { titel: 'Gekozen velden' }));
    const uuid = a.url.split('/').pop();
    const res = await as17('POST', `${EIO}/_zoek`, {
      uuid__in: [uuid],
      expand: 'informatieobjecttype',
      fields: ['url', 'titel', 'isGereedVoorPublicatie', { informatieobjecttype: ['omschrijving'] }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toEqual([
      { url: a.url, titel: 'Gekozen velden', isGereedVoorPublicatie: false, _expand: { informatieobjecttype: { omschrijving: 'bijlage' } } },
    ]);
    const whole = (await as17('POST', `${EIO}/_zoek`, { uuid__in: [uuid], expand: 'informatieobjecttype', fields: ['*'] })).json().results[0];
    expect(whole).toMatchObject({ url: a.url, tonenAanInitiator: false, locked: false });
    expect(whole._expand.informatieobjecttype).toMatchObject({ url: iot, omschrijving: 'bijlage' });

    for (const [fields, expand] of [
      [['geenVeld'], undefined],
      [[{ informatieobjecttype: ['omschrijving'] }], undefined],
      ['titel', undefined],
      [[], undefined],
      [[{ informatieobjecttype: [] }], 'informatieobjecttype'],
    ]) {
      const bad = await as17('POST', `${EIO}/_zoek`, { uuid__in: [uuid], fields, ...(expand ? { expand } : {}) });
      expect(bad.statusCode).toBe(400);
      expect(param(bad).name).toMatch(/^fields/);
    }
    // 1.5 has no fields: asking for them there is an unknown key of the _zoek body, refused.
    const in15 = await t.call('POST', `${EIO}/_zoek`, { uuid__in: [uuid], fields: ['url'] });
    expect(in15.statusCode).toBe(400);
    expect(param(in15)).toMatchObject({ name: 'fields', code: 'unknown-parameters' });
  });
});

describe('verzendingen', () => {
  it('need a verzenddatum for an outgoing document in 1.5, not in 1.7', async () => {
    const eio = await createEio(t, eioBody(iot));
    const body = {
      informatieobject: eio.url,
      betrokkene: 'https://klanten.example.org/api/v1/klanten/9',
      aardRelatie: 'geadresseerde',
      contactPersoon: 'https://medewerkers.example.org/api/v1/medewerkers/1',
    };
    const v15 = await t.call('POST', `${DRC}/verzendingen`, body);
    expect(v15.statusCode).toBe(400);
    expect(param(v15)).toMatchObject({ name: 'verzenddatum', code: 'required' });
    expect((await t.call('POST', `${DRC}/verzendingen`, { ...body, aardRelatie: 'afzender' })).statusCode).toBe(201);
    const v17 = await as17('POST', `${DRC}/verzendingen`, body);
    expect(v17.statusCode).toBe(201);
    expect(v17.headers['api-version']).toBe('1.7.0');
    expect(v17.json().verzenddatum).toBeNull();
  });
});

describe('DRC_DEFAULT_VERSION', () => {
  it('sets the version served without a header', async () => {
    const app = await startApp({ DRC_DEFAULT_VERSION: '1.7' });
    try {
      const type = await create(app, 'informatieobjecttypen', iotBody(await catalogus(app, 'DEF17')));
      await publish(app, type.url);
      const eio = await createEio(app, eioBody(type.url));
      expect(eio.isGereedVoorPublicatie).toBe(false);
      const res = await app.call('GET', eio.url);
      expect(res.headers['api-version']).toBe('1.7.0');
      const old = await app.call('GET', eio.url, undefined, { headers: { 'api-version': '1.5' } });
      expect(old.headers['api-version']).toBe('1.5.0');
      expect(old.json()).not.toHaveProperty('tonenAanInitiator');
      expect((await app.call('GET', `${DRC}/schema/openapi.json`, undefined, { token: null })).json().info.version).toBe('1.7.0');
      expect((await app.call('GET', eio.url, undefined, { headers: { 'api-version': '1' } })).headers['api-version']).toBe('1.7.0');
      expect((await app.call('GET', '/', undefined, { token: null })).json().components.documenten).toBe('1.7.0');
    } finally {
      await app.close();
    }
  });
});

describe('expanded documents', () => {
  it('show in the version of the request that expands them', async () => {
    const eio = await createEio(t, eioBody(iot));
    const gr = (
      await t.call('POST', `${DRC}/gebruiksrechten`, {
        informatieobject: eio.url,
        startdatum: '2024-01-01T12:00:00',
        omschrijvingVoorwaarden: 'intern',
      })
    ).json();
    const v17 = (await as17('GET', `${gr.url}?expand=informatieobject`)).json();
    expect(v17._expand.informatieobject).toMatchObject({ url: eio.url, isGereedVoorPublicatie: false });
    const v15 = (await t.call('GET', `${gr.url}?expand=informatieobject`)).json();
    expect(v15._expand.informatieobject.url).toBe(eio.url);
    expect(v15._expand.informatieobject).not.toHaveProperty('isGereedVoorPublicatie');
  });
});
