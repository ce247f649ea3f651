import { createEio, eioBody } from './documenten.fixtures';
import { BASE, startApp, token, type TestApp } from './harness';
import { BESLUITEN, BIO, BRC, MISSING, besluitBody, besluittype, besluittypeMetDocumenttype, createB, type BesluitSetup } from './besluiten.fixtures';

// Every operation of the Besluiten API 1.0.2: besluiten (create with a generated identificatie, read, update, partial
// update, delete, every list filter, pagination), besluitinformatieobjecten (a plain list) and the audit trail.
let t: TestApp;
let s: BesluitSetup;

beforeAll(async () => {
  t = await startApp();
  s = await besluittypeMetDocumenttype(t);
});
afterAll(async () => {
  await t.close();
});

const get = async (url: string) => {
  const res = await t.call('GET', url);
  expect(res.statusCode).toBe(200);
  return res.json();
};

describe('besluiten', () => {
  it('are created with a generated identificatie and every field of the standard, and read back', async () => {
    const res = await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { datum: '2023-12-01' }));
    expect(res.statusCode).toBe(201);
    const b = res.json();
    expect(res.headers.location).toBe(b.url);
    expect(b.url).toMatch(new RegExp(`^${BASE}${BESLUITEN}/[0-9a-f-]{36}$`));
    expect(b).toEqual({
      url: b.url,
      identificatie: expect.stringMatching(/^BESLUIT-2023-\d{10}$/),
      verantwoordelijkeOrganisatie: '000000000',
      besluittype: s.besluittype,
      zaak: '',
      datum: '2023-12-01',
      toelichting: '',
      bestuursorgaan: '',
      ingangsdatum: '2024-03-02',
      vervaldatum: null,
      vervalreden: '',
      vervalredenWeergave: '',
      publicatiedatum: null,
      verzenddatum: null,
      uiterlijkeReactiedatum: null,
    });
    const read = await t.call('GET', b.url);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(b);
    expect(read.headers.etag).toBeDefined();
    expect((await t.call('GET', b.url, undefined, { headers: { 'if-none-match': String(read.headers.etag) } })).statusCode).toBe(304);
    expect(read.headers['api-version']).toBe('1.0.2');
  });

  it('number generated identificaties per verantwoordelijkeOrganisatie and year, passing over one taken by hand', async () => {
    const a = await createB(t, BESLUITEN, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '123456782', datum: '2022-05-01' }));
    const n = Number(a.identificatie.slice(-10));
    expect(a.identificatie).toBe(`BESLUIT-2022-${String(n).padStart(10, '0')}`);
    const next = `BESLUIT-2022-${String(n + 1).padStart(10, '0')}`;
    await createB(t, BESLUITEN, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '123456782', identificatie: next }));
    const c = await createB(t, BESLUITEN, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '123456782', datum: '2022-06-01' }));
    expect(c.identificatie).toBe(`BESLUIT-2022-${String(n + 2).padStart(10, '0')}`);
    // Another organisation may use the same identificatie.
    const other = await createB(t, BESLUITEN, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '000000000', identificatie: next }));
    expect(other.identificatie).toBe(next);
    // Concurrent creates all get an identificatie of their own.
    const many = await Promise.all(
      Array.from({ length: 8 }, () =>
        createB(t, BESLUITEN, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '111222333', datum: '2022-01-01' })),
      ),
    );
    expect(new Set(many.map((b) => b.identificatie)).size).toBe(8);
  });

  it('are updated in full (PUT) and in part (PATCH), keeping their identificatie', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype, { toelichting: 'eerst', bestuursorgaan: 'college' }));
    const put = await t.call(
      'PUT',
      b.url,
      besluitBody(s.besluittype, {
        identificatie: b.identificatie,
        toelichting: 'daarna',
        vervaldatum: '2030-01-01',
        vervalreden: 'tijdelijk',
        publicatiedatum: '2024-03-03',
        verzenddatum: '2024-03-04',
        uiterlijkeReactiedatum: '2024-04-15',
      }),
    );
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      identificatie: b.identificatie,
      toelichting: 'daarna',
      bestuursorgaan: '',
      vervaldatum: '2030-01-01',
      vervalreden: 'tijdelijk',
      vervalredenWeergave: 'Besluit met tijdelijke werking',
      publicatiedatum: '2024-03-03',
      verzenddatum: '2024-03-04',
      uiterlijkeReactiedatum: '2024-04-15',
    });
    const patch = await t.call('PATCH', b.url, { bestuursorgaan: 'raad', vervalreden: 'ingetrokken_belanghebbende' });
    expect(patch.statusCode).toBe(200);
    expect(patch.json()).toMatchObject({
      toelichting: 'daarna',
      bestuursorgaan: 'raad',
      vervalredenWeergave: 'Besluit ingetrokken o.v.v. belanghebbende',
    });
    expect(await get(b.url)).toEqual(patch.json());
    // Empty values clear the optional fields.
    const cleared = await t.call('PATCH', b.url, { vervaldatum: null, vervalreden: '', zaak: null });
    expect(cleared.json()).toMatchObject({ vervaldatum: null, vervalreden: '', vervalredenWeergave: '', zaak: '' });
  });

  it('are deleted', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    expect((await t.call('DELETE', b.url)).statusCode).toBe(204);
    expect((await t.call('GET', b.url)).statusCode).toBe(404);
    expect((await t.call('DELETE', b.url)).statusCode).toBe(404);
    expect((await t.call('PATCH', b.url, { toelichting: 'x' })).statusCode).toBe(404);
  });

  it('are listed with every filter of the standard', async () => {
    const cat = (await get(s.besluittype)).catalogus;
    const bt = await besluittype(t, cat);
    const a = await createB(t, BESLUITEN, besluitBody(bt, { verantwoordelijkeOrganisatie: '999999999', identificatie: 'FILTER-A' }));
    const b = await createB(t, BESLUITEN, besluitBody(bt, { verantwoordelijkeOrganisatie: '999999990', identificatie: 'FILTER-B' }));
    const urls = async (query: string) => {
      const body = await get(`${BESLUITEN}?${query}`);
      expect(body.count).toBe(body.results.length);
      return body.results.map((r: { url: string }) => r.url);
    };
    expect(await urls(`besluittype=${encodeURIComponent(bt)}`)).toEqual([a.url, b.url]);
    expect(await urls('identificatie=FILTER-A')).toEqual([a.url]);
    expect(await urls('verantwoordelijkeOrganisatie=999999990')).toEqual([b.url]);
    expect(await urls('verantwoordelijkeOrganisatie=999999999&identificatie=FILTER-A')).toEqual([a.url]);
    expect(await urls('verantwoordelijkeOrganisatie=999999999&identificatie=FILTER-B')).toEqual([]);
    expect(await urls(`besluittype=${encodeURIComponent(bt)}&identificatie=FILTER-B`)).toEqual([b.url]);
    expect(await urls(`zaak=${encodeURIComponent(`${BASE}/zaken/api/v1/zaken/${MISSING}`)}`)).toEqual([]);
    // Filter values are checked: not a URL where the standard has one, or an unknown parameter.
    expect((await t.call('GET', `${BESLUITEN}?besluittype=geen-url`)).statusCode).toBe(400);
    expect((await t.call('GET', `${BESLUITEN}?zaak=geen-url`)).statusCode).toBe(400);
  });

  it('are listed in pages of 100', async () => {
    const cat = (await get(s.besluittype)).catalogus;
    const bt = await besluittype(t, cat);
    for (let i = 0; i < 101; i++) await createB(t, BESLUITEN, besluitBody(bt));
    const first = await get(`${BESLUITEN}?besluittype=${encodeURIComponent(bt)}`);
    expect(first).toMatchObject({ count: 101, previous: null });
    expect(first.results).toHaveLength(100);
    const second = await get(first.next);
    expect(second).toMatchObject({ count: 101, next: null });
    expect(second.results).toHaveLength(1);
    expect(new Set([...first.results, ...second.results].map((r: { url: string }) => r.url)).size).toBe(101);
    expect(second.previous).toContain('page=1');
    const all = await get(BESLUITEN);
    expect(all.count).toBeGreaterThanOrEqual(101);
  });
});

describe('besluitinformatieobjecten', () => {
  it('are created, read, listed as a plain array by besluit and informatieobject, and deleted', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const other = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const eio = await createEio(t, eioBody(s.informatieobjecttype));
    const eio2 = await createEio(t, eioBody(s.informatieobjecttype));
    const res = await t.call('POST', BIO, { besluit: b.url, informatieobject: eio.url });
    expect(res.statusCode).toBe(201);
    const bio = res.json();
    expect(bio).toEqual({ url: expect.stringMatching(new RegExp(`^${BASE}${BIO}/[0-9a-f-]{36}$`)), besluit: b.url, informatieobject: eio.url });
    expect(res.headers.location).toBe(bio.url);
    expect(await get(bio.url)).toEqual(bio);
    const bio2 = await createB(t, BIO, { besluit: b.url, informatieobject: eio2.url });
    const bio3 = await createB(t, BIO, { besluit: other.url, informatieobject: eio.url });

    const list = async (query: string) => ((await get(`${BIO}?${query}`)) as { url: string }[]).map((x) => x.url).sort();
    expect(await list(`besluit=${encodeURIComponent(b.url)}`)).toEqual([bio.url, bio2.url].sort());
    expect(await list(`informatieobject=${encodeURIComponent(eio.url)}`)).toEqual([bio.url, bio3.url].sort());
    expect(await list(`besluit=${encodeURIComponent(b.url)}&informatieobject=${encodeURIComponent(eio.url)}`)).toEqual([bio.url]);
    expect(Array.isArray(await get(BIO))).toBe(true);

    // besluit and informatieobject are fixed (brc-004): the same values are accepted, others are not.
    expect((await t.call('PUT', bio.url, { besluit: b.url, informatieobject: eio.url })).json()).toEqual(bio);
    expect((await t.call('PATCH', bio.url, {})).json()).toEqual(bio);

    expect((await t.call('DELETE', bio.url)).statusCode).toBe(204);
    expect((await t.call('GET', bio.url)).statusCode).toBe(404);
    expect(await list(`besluit=${encodeURIComponent(b.url)}`)).toEqual([bio2.url]);
  });
});

describe('audit trail of a besluit', () => {
  it('lists the writes of the besluit and its besluitinformatieobjecten, oldest first, each readable on its own', async () => {
    const writer = token();
    const b = (
      await t.call('POST', BESLUITEN, besluitBody(s.besluittype), { token: writer, headers: { 'x-audit-toelichting': 'Op verzoek' } })
    ).json();
    await t.call('PATCH', b.url, { toelichting: 'aangevuld' });
    await t.call('PUT', b.url, besluitBody(s.besluittype, { toelichting: 'herzien' }));
    const eio = await createEio(t, eioBody(s.informatieobjecttype));
    const bio = await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });
    expect((await t.call('DELETE', bio.url)).statusCode).toBe(204);

    const trail = (await get(`${b.url}/audittrail`)) as Record<string, any>[];
    expect(trail.map((e) => `${e.resource} ${e.actie}`)).toEqual([
      'besluit create',
      'besluit partial_update',
      'besluit update',
      'besluitinformatieobject create',
      'besluitinformatieobject destroy',
    ]);
    expect(trail[0]).toMatchObject({
      bron: 'brc',
      hoofdObject: b.url,
      resourceUrl: b.url,
      resourceWeergave: b.identificatie,
      toelichting: 'Op verzoek',
      resultaat: 201,
      wijzigingen: { nieuw: expect.objectContaining({ url: b.url, identificatie: b.identificatie }) },
    });
    expect(trail[1].wijzigingen).toMatchObject({ oud: { toelichting: '' }, nieuw: { toelichting: 'aangevuld' } });
    expect(trail[3]).toMatchObject({ hoofdObject: b.url, resourceUrl: bio.url });
    expect(await get(`${b.url}/audittrail/${trail[2].uuid}`)).toEqual(trail[2]);
    expect((await t.call('GET', `${b.url}/audittrail/${MISSING}`)).statusCode).toBe(404);

    // A besluit that is gone has no trail (brc-008).
    expect((await t.call('DELETE', b.url)).statusCode).toBe(204);
    expect((await t.call('GET', `${b.url}/audittrail`)).statusCode).toBe(404);
    expect((await t.call('GET', `${BRC}/besluiten/${MISSING}/audittrail`)).statusCode).toBe(404);
  });
});
