import { create, iotBody, publish, startReferentielijsten, besluittypeBody, type Referentielijsten } from './catalogi.fixtures';
import { DRC, createEio, eioBody, informatieobjecttype } from './documenten.fixtures';
import { BASE, startApp, type TestApp } from './harness';
import { CRS, createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';
import {
  BESLUITEN,
  BIO,
  MISSING,
  besluitBody,
  besluittype,
  brcClient,
  createB,
  missing,
  param,
  zaaktypeMetBesluittype,
  type ZaakBesluitSetup,
} from './besluiten.fixtures';

// The business rules of the Besluiten API (brc-001 .. brc-008), each with the error code the standard's tests expect.
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakBesluitSetup;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetBesluittype(t, sl);
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const OIO = `${DRC}/objectinformatieobjecten`;
const oiosOf = async (besluit: string) => (await t.call('GET', `${OIO}?object=${encodeURIComponent(besluit)}`)).json() as Record<string, any>[];
const catalogus = async () => (await t.call('GET', s.besluittype)).json().catalogus as string;

describe('brc-001: the besluittype', () => {
  it('must answer, be a besluittype and be published', async () => {
    const post = (bt: string) => t.call('POST', BESLUITEN, besluitBody(bt));
    expect(param(await post(`${BASE}/catalogi/api/v1/besluittypen/${MISSING}`))).toMatchObject({ name: 'besluittype', code: 'bad-url' });
    expect(param(await post(`${sl.url}/besluittypen/nergens`))).toMatchObject({ name: 'besluittype', code: 'bad-url' });
    expect(param(await post(s.informatieobjecttype))).toMatchObject({ name: 'besluittype', code: 'invalid-resource' });
    const concept = await create(t, 'besluittypen', besluittypeBody(await catalogus(), { omschrijving: 'concept' }));
    expect(param(await post(concept.url))).toMatchObject({ name: 'besluittype', code: 'not-published' });
    await publish(t, concept.url);
    expect((await post(concept.url)).statusCode).toBe(201);
  });

  it('is fixed once the besluit exists', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const other = await besluittype(t, await catalogus());
    expect(param(await t.call('PUT', b.url, besluitBody(other)))).toMatchObject({ name: 'besluittype', code: 'wijzigen-niet-toegelaten' });
    expect(param(await t.call('PATCH', b.url, { besluittype: other }))).toMatchObject({ name: 'besluittype', code: 'wijzigen-niet-toegelaten' });
    expect((await t.call('PATCH', b.url, { besluittype: s.besluittype })).statusCode).toBe(200);
    expect((await t.call('GET', b.url)).json().besluittype).toBe(s.besluittype);
  });

  it('goes with a datum that is not in the future', async () => {
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    expect(param(await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { datum: tomorrow })))).toMatchObject({
      name: 'datum',
      code: 'future_not_allowed',
    });
  });
});

describe('brc-002: identificatie per verantwoordelijkeOrganisatie', () => {
  it('is unique, and with verantwoordelijkeOrganisatie fixed once the besluit exists', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype, { identificatie: 'BRC-002' }));
    expect(param(await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { identificatie: 'BRC-002' })))).toMatchObject({
      name: 'identificatie',
      code: 'identificatie-niet-uniek',
    });
    expect(
      (await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { identificatie: 'BRC-002', verantwoordelijkeOrganisatie: '123456782' })))
        .statusCode,
    ).toBe(201);
    expect(param(await t.call('PUT', b.url, besluitBody(s.besluittype, { identificatie: 'BRC-002-X' })))).toMatchObject({
      name: 'identificatie',
      code: 'wijzigen-niet-toegelaten',
    });
    expect(param(await t.call('PATCH', b.url, { identificatie: 'BRC-002-X' }))).toMatchObject({
      name: 'identificatie',
      code: 'wijzigen-niet-toegelaten',
    });
    expect(param(await t.call('PUT', b.url, besluitBody(s.besluittype, { verantwoordelijkeOrganisatie: '245122461' })))).toMatchObject({
      name: 'verantwoordelijkeOrganisatie',
      code: 'wijzigen-niet-toegelaten',
    });
    expect(param(await t.call('PATCH', b.url, { verantwoordelijkeOrganisatie: '245122461' }))).toMatchObject({
      name: 'verantwoordelijkeOrganisatie',
      code: 'wijzigen-niet-toegelaten',
    });
    // The same values (or none: PUT without identificatie) are no change.
    expect((await t.call('PATCH', b.url, { identificatie: 'BRC-002', verantwoordelijkeOrganisatie: '000000000' })).statusCode).toBe(200);
    expect((await t.call('PUT', b.url, besluitBody(s.besluittype))).json().identificatie).toBe('BRC-002');
  });
});

describe('besluitinformatieobjecten', () => {
  it('need a besluit of this API (no_match, does_not_exist) and link each document once', async () => {
    const eio = await createEio(t, eioBody(s.informatieobjecttype));
    expect(param(await t.call('POST', BIO, { besluit: `${sl.url}/besluiten/1`, informatieobject: eio.url }))).toMatchObject({
      name: 'besluit',
      code: 'no_match',
    });
    expect(param(await t.call('POST', BIO, { besluit: missing('besluiten'), informatieobject: eio.url }))).toMatchObject({
      name: 'besluit',
      code: 'does_not_exist',
    });
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });
    expect(param(await t.call('POST', BIO, { besluit: b.url, informatieobject: eio.url }))).toMatchObject({ name: 'nonFieldErrors', code: 'unique' });
    // At the same moment too: the unique index decides.
    const eio2 = await createEio(t, eioBody(s.informatieobjecttype));
    const both = await Promise.all([1, 2].map(() => t.call('POST', BIO, { besluit: b.url, informatieobject: eio2.url })));
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 400]);
  });

  it('brc-003: need an informatieobject that answers as a document', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const post = (informatieobject: string) => t.call('POST', BIO, { besluit: b.url, informatieobject });
    expect(param(await post(`${sl.url}/documenten/weg`))).toMatchObject({ name: 'informatieobject', code: 'bad-url' });
    expect(param(await post(`${BASE}${DRC}/enkelvoudiginformatieobjecten/${MISSING}`))).toMatchObject({ name: 'informatieobject', code: 'bad-url' });
    expect(param(await post(sl.procestype))).toMatchObject({ name: 'informatieobject', code: 'invalid-resource' });
    // A document of another Documenten API, of an informatieobjecttype of the besluittype: linked, no objectinformatieobject here.
    const elders = sl.add('enkelvoudiginformatieobjecten/1', {
      informatieobjecttype: s.informatieobjecttype,
      titel: 'elders',
      bronorganisatie: '000000000',
    });
    expect((await post(elders)).statusCode).toBe(201);
    expect(await oiosOf(b.url)).toEqual([]);
  });

  it('brc-004: keep their besluit and informatieobject', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const other = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const eio = await createEio(t, eioBody(s.informatieobjecttype));
    const eio2 = await createEio(t, eioBody(s.informatieobjecttype));
    const bio = await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });
    expect(param(await t.call('PUT', bio.url, { besluit: other.url, informatieobject: eio.url }))).toMatchObject({
      name: 'besluit',
      code: 'wijzigen-niet-toegelaten',
    });
    expect(param(await t.call('PATCH', bio.url, { besluit: other.url }))).toMatchObject({ name: 'besluit', code: 'wijzigen-niet-toegelaten' });
    expect(param(await t.call('PUT', bio.url, { besluit: b.url, informatieobject: eio2.url }))).toMatchObject({
      name: 'informatieobject',
      code: 'wijzigen-niet-toegelaten',
    });
    expect(param(await t.call('PATCH', bio.url, { informatieobject: eio2.url }))).toMatchObject({
      name: 'informatieobject',
      code: 'wijzigen-niet-toegelaten',
    });
    expect((await t.call('GET', bio.url)).json()).toEqual(bio);
  });

  it('brc-005: are mirrored as objectinformatieobjecten of the document, which follow them', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const eio = await createEio(t, eioBody(s.informatieobjecttype));
    const bio = await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });
    const [oio, ...rest] = await oiosOf(b.url);
    expect(rest).toEqual([]);
    expect(oio).toMatchObject({ informatieobject: eio.url, object: b.url, objectType: 'besluit' });
    // The Documenten API guards the mirror: the link is held by the besluit, and the document is still linked (drc-008).
    expect(param(await t.call('DELETE', oio.url))).toMatchObject({ code: 'inconsistent-relation' });
    expect(param(await t.call('DELETE', eio.url))).toMatchObject({ code: 'pending-relations' });
    // A client may record the link itself only while the besluit holds it (drc-004): here it is there already.
    expect(param(await t.call('POST', OIO, { informatieobject: eio.url, object: b.url, objectType: 'besluit' }))).toMatchObject({ code: 'unique' });

    expect((await t.call('DELETE', bio.url)).statusCode).toBe(204);
    expect(await oiosOf(b.url)).toEqual([]);
    expect((await t.call('GET', oio.url)).statusCode).toBe(404);
    expect(param(await t.call('POST', OIO, { informatieobject: eio.url, object: b.url, objectType: 'besluit' }))).toMatchObject({
      code: 'inconsistent-relation',
    });
    expect((await t.call('DELETE', eio.url)).statusCode).toBe(204);
  });

  it('brc-007: need a document of an informatieobjecttype of the besluittype', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    // Same catalogus, another omschrijving; and a type of another catalogus with the same omschrijving.
    const anders = await create(t, 'informatieobjecttypen', iotBody(await catalogus(), { omschrijving: 'anders' }));
    await publish(t, anders.url);
    const elders = await informatieobjecttype(t, { omschrijving: 'besluitdocument' });
    for (const iot of [anders.url, elders]) {
      const eio = await createEio(t, eioBody(iot));
      const res = await t.call('POST', BIO, { besluit: b.url, informatieobject: eio.url });
      expect(param(res)).toMatchObject({ name: 'nonFieldErrors', code: 'missing-besluittype-informatieobjecttype-relation' });
      expect(await oiosOf(b.url)).toEqual([]);
    }
  });
});

describe('brc-006: the zaak of a besluit', () => {
  it('must exist, and its zaaktype must know the besluittype', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    expect((await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { zaak: zaak.url }))).statusCode).toBe(201);
    const other = await besluittype(t, await catalogus());
    expect(param(await t.call('POST', BESLUITEN, besluitBody(other, { zaak: zaak.url })))).toMatchObject({
      name: 'nonFieldErrors',
      code: 'zaaktype-mismatch',
    });
    // A zaaktype of another catalogus does not know it, whatever its besluittypen are called.
    const vreemd = await zaaktypeMetOnderdelen(t, sl);
    const vreemdeZaak = await createZ(t, 'zaken', zaakBody(vreemd.zaaktype));
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    expect(param(await t.call('PATCH', b.url, { zaak: vreemdeZaak.url }))).toMatchObject({ name: 'nonFieldErrors', code: 'zaaktype-mismatch' });

    expect(param(await t.call('PATCH', b.url, { zaak: `${BASE}/zaken/api/v1/zaken/${MISSING}` }))).toMatchObject({ name: 'zaak', code: 'bad-url' });
    expect(param(await t.call('PATCH', b.url, { zaak: `${sl.url}/zaken/weg` }))).toMatchObject({ name: 'zaak', code: 'bad-url' });
    expect(param(await t.call('PATCH', b.url, { zaak: sl.procestype }))).toMatchObject({ name: 'zaak', code: 'invalid-resource' });
    expect((await t.call('GET', b.url)).json().zaak).toBe('');
  });

  it('of another Zaken API is read there, with its zaaktype', async () => {
    const zaaktype = (await t.call('GET', s.zaaktype)).json();
    const zaak = sl.add('zaken/1', { zaaktype: zaaktype.url, bronorganisatie: '000000000' });
    const b = await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { zaak }));
    expect(b.statusCode).toBe(201);
    expect(b.json().zaak).toBe(zaak);
    const vreemd = sl.add('zaaktypen/1', { besluittypen: [] });
    const andereZaak = sl.add('zaken/2', { zaaktype: vreemd, bronorganisatie: '000000000' });
    expect(param(await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { zaak: andereZaak })))).toMatchObject({ code: 'zaaktype-mismatch' });
    const kent = sl.add('zaaktypen/2', { besluittypen: [s.besluittype] });
    expect(
      (await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { zaak: sl.add('zaken/3', { zaaktype: kent, bronorganisatie: '000000000' }) })))
        .statusCode,
    ).toBe(201);
  });
});

describe('brc-008: deleting a besluit', () => {
  it('deletes its besluitinformatieobjecten and their objectinformatieobjecten', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const keep = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const eios = [await createEio(t, eioBody(s.informatieobjecttype)), await createEio(t, eioBody(s.informatieobjecttype))];
    const bios = [];
    for (const eio of eios) bios.push(await createB(t, BIO, { besluit: b.url, informatieobject: eio.url }));
    const kept = await createB(t, BIO, { besluit: keep.url, informatieobject: eios[0]!.url });
    expect(await oiosOf(b.url)).toHaveLength(2);

    expect((await t.call('DELETE', b.url)).statusCode).toBe(204);
    expect((await t.call('GET', `${BIO}?besluit=${encodeURIComponent(b.url)}`)).json()).toEqual([]);
    for (const bio of bios) expect((await t.call('GET', bio.url)).statusCode).toBe(404);
    expect(await oiosOf(b.url)).toEqual([]);
    // The other besluit keeps its link and its mirror; the second document may go now.
    expect((await t.call('GET', kept.url)).statusCode).toBe(200);
    expect(await oiosOf(keep.url)).toHaveLength(1);
    expect((await t.call('DELETE', eios[1]!.url)).statusCode).toBe(204);
  });
});

describe('a closed zaak', () => {
  it('gets or loses a besluit only with zaken.geforceerd-bijwerken', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    await createZ(t, 'resultaten', { zaak: zaak.url, resultaattype: s.resultaattypen.ingangsdatum });
    await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.eind, datumStatusGezet: '2024-03-05T10:00:00Z' });
    expect((await t.call('GET', zaak.url, undefined, { headers: CRS })).json().einddatum).toBe('2024-03-05');

    const tok = await brcClient(t, 'brc-gesloten', [
      { scopes: ['besluiten.lezen', 'besluiten.aanmaken', 'besluiten.bijwerken', 'besluiten.verwijderen'], besluittype: s.besluittype },
      { component: 'zrc', scopes: ['zaken.lezen', 'zaken.bijwerken'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'zeer_geheim' },
    ]);
    expect((await t.call('POST', BESLUITEN, besluitBody(s.besluittype, { zaak: zaak.url }), { token: tok })).statusCode).toBe(403);
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: zaak.url }));
    expect((await t.call('PATCH', b.url, { zaak: '' }, { token: tok })).statusCode).toBe(403);
    expect((await t.call('DELETE', b.url, undefined, { token: tok })).statusCode).toBe(403);
    // Other changes leave the zaak alone.
    expect((await t.call('PATCH', b.url, { toelichting: 'mag' }, { token: tok })).statusCode).toBe(200);
    expect((await t.call('DELETE', b.url)).statusCode).toBe(204);
  });
});
