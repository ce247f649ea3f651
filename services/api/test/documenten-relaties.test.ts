import { create, iotBody, publish, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { DRC, EIO, createEio, eioBody, lock, zaaktypeMetBijlage } from './documenten.fixtures';
import { startApp, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody } from './zaken.fixtures';

// Gebruiksrechten keep their document's indicatieGebruiksrecht in step (drc-006); objectinformatieobjecten follow the
// zaakinformatieobjecten of the Zaken API in-process and guard their own rules (drc-002..004, drc-008).
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

const GR = `${DRC}/gebruiksrechten`;
const OIO = `${DRC}/objectinformatieobjecten`;
const param = (res: { json(): any }) => (res.json().invalidParams as { name: string; code: string }[])[0];

describe('gebruiksrechten', () => {
  it('set the indicatieGebruiksrecht of their document while they exist, and expand it', async () => {
    const eio = await createEio(t, eioBody(iot));
    const res = await t.call('POST', GR, { informatieobject: eio.url, startdatum: '2024-01-01T12:00:00', omschrijvingVoorwaarden: 'alleen intern' });
    expect(res.statusCode).toBe(201);
    const gr = res.json();
    expect(gr).toMatchObject({
      informatieobject: eio.url,
      startdatum: '2024-01-01T12:00:00Z',
      einddatum: null,
      omschrijvingVoorwaarden: 'alleen intern',
    });
    expect((await t.call('GET', eio.url)).json()).toMatchObject({ indicatieGebruiksrecht: true, versie: 1 });

    const expanded = (await t.call('GET', `${gr.url}?expand=informatieobject`)).json();
    expect(expanded._expand.informatieobject).toMatchObject({ url: eio.url, titel: eio.titel });
    expect((await t.call('PATCH', gr.url, { omschrijvingVoorwaarden: 'ook extern' })).json().omschrijvingVoorwaarden).toBe('ook extern');
    expect(param(await t.call('PATCH', gr.url, { informatieobject: (await createEio(t, eioBody(iot))).url })).code).toBe('wijzigen-niet-toegelaten');

    // The indication cannot be taken away by hand while gebruiksrechten exist.
    const l = await lock(t, eio.url);
    expect(param(await t.call('PATCH', eio.url, { indicatieGebruiksrecht: false, lock: l })).code).toBe('existing-gebruiksrechten');

    const list = await t.call(
      'GET',
      `${GR}?informatieobject=${encodeURIComponent(eio.url)}&startdatum__gte=2024-01-01T00:00:00&startdatum__lt=2024-01-02T00:00:00`,
    );
    expect(list.json().map((g: { url: string }) => g.url)).toEqual([gr.url]);
    expect((await t.call('GET', `${GR}?informatieobject=${encodeURIComponent(eio.url)}&startdatum__gt=2024-01-01T12:00:00`)).json()).toEqual([]);
    expect((await t.call('GET', `${GR}?einddatum__lte=2030-01-01T00:00:00`)).json()).toEqual([]);

    expect((await t.call('DELETE', gr.url)).statusCode).toBe(204);
    expect((await t.call('GET', eio.url)).json().indicatieGebruiksrecht).toBeNull();
  });

  it('need a document of this API, and go with it', async () => {
    const bad = await t.call('POST', GR, {
      informatieobject: `${ZRC}/zaken/x`.replace(ZRC, 'http://127.0.0.1:8000/zaken/api/v1'),
      startdatum: '2024-01-01T12:00:00',
      omschrijvingVoorwaarden: 'x',
    });
    expect(param(bad)).toMatchObject({ name: 'informatieobject', code: 'no_match' });
    const eio = await createEio(t, eioBody(iot));
    const gr = (await t.call('POST', GR, { informatieobject: eio.url, startdatum: '2024-01-01T12:00:00', omschrijvingVoorwaarden: 'x' })).json();
    expect((await t.call('DELETE', eio.url)).statusCode).toBe(204);
    expect((await t.call('GET', gr.url)).statusCode).toBe(404);
  });
});

describe('objectinformatieobjecten', () => {
  it('follow the zaakinformatieobjecten of this platform; a linked document cannot be deleted (drc-008)', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(zaaktype));
    const eio = await createEio(t, eioBody(iot));
    const zio = await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: eio.url });
    const links = (await t.call('GET', `${OIO}?informatieobject=${encodeURIComponent(eio.url)}`)).json();
    expect(links).toEqual([expect.objectContaining({ informatieobject: eio.url, object: zaak.url, objectType: 'zaak' })]);
    expect(
      (await t.call('GET', `${OIO}?informatieobject=${encodeURIComponent(eio.url)}&object=${encodeURIComponent(zaak.url)}`)).json(),
    ).toHaveLength(1);
    expect((await t.call('GET', `${OIO}?object=${encodeURIComponent(zaak.url)}`)).json()).toHaveLength(1);

    // drc-003: the link exists already; drc-008: the document is still linked.
    expect(param(await t.call('POST', OIO, { informatieobject: eio.url, object: zaak.url, objectType: 'zaak' }))).toMatchObject({
      name: 'nonFieldErrors',
      code: 'unique',
    });
    expect(param(await t.call('DELETE', eio.url))).toMatchObject({ name: 'nonFieldErrors', code: 'pending-relations' });
    // The Zaken API holds the relation: it is removed there, not here.
    expect(param(await t.call('DELETE', links[0].url))).toMatchObject({ code: 'inconsistent-relation' });

    expect((await t.call('DELETE', zio.url, undefined, { headers: CRS })).statusCode).toBe(204);
    expect((await t.call('GET', `${OIO}?informatieobject=${encodeURIComponent(eio.url)}`)).json()).toEqual([]);
    // drc-004: no relation in the Zaken API, no objectinformatieobject.
    expect(param(await t.call('POST', OIO, { informatieobject: eio.url, object: zaak.url, objectType: 'zaak' }))).toMatchObject({
      code: 'inconsistent-relation',
    });
    expect((await t.call('DELETE', eio.url)).statusCode).toBe(204);
  });

  it('go when the zaak goes, and read the document in-process for the zaak rules', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(zaaktype));
    const eio = await createEio(t, eioBody(iot));
    await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: eio.url });
    expect((await t.call('GET', `${OIO}?object=${encodeURIComponent(zaak.url)}`)).json()).toHaveLength(1);
    expect((await t.call('DELETE', zaak.url, undefined, { headers: CRS })).statusCode).toBe(204);
    expect((await t.call('GET', `${OIO}?object=${encodeURIComponent(zaak.url)}`)).json()).toEqual([]);
    // A document of a type the zaaktype does not know (zrc-017), read in-process.
    const other = await create(t, 'informatieobjecttypen', iotBody((await t.call('GET', iot)).json().catalogus, { omschrijving: 'anders' }));
    await publish(t, other.url);
    const foreign = await createEio(t, eioBody(other.url));
    const zaak2 = await createZ(t, 'zaken', zaakBody(zaaktype));
    const res = await t.call('POST', `${ZRC}/zaakinformatieobjecten`, { zaak: zaak2.url, informatieobject: foreign.url }, { headers: CRS });
    expect(param(res).code).toBe('missing-zaaktype-informatieobjecttype-relation');
    const missing = await t.call(
      'POST',
      `${ZRC}/zaakinformatieobjecten`,
      { zaak: zaak2.url, informatieobject: `${EIO.replace(DRC, 'http://127.0.0.1:8000/documenten/api/v1')}/00000000-0000-4000-8000-000000000000` },
      { headers: CRS },
    );
    expect(param(missing)).toMatchObject({ name: 'informatieobject', code: 'bad-url' });
  });

  it('give the Zaken rules on documents the document as it is (zrc-007, zrc-022)', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(zaaktype));
    const eio = await createEio(t, eioBody(iot));
    await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: eio.url });
    const archive = () => t.call('PATCH', zaak.url, { archiefstatus: 'gearchiveerd' }, { headers: CRS });
    expect(param(await archive())).toMatchObject({ name: 'archiefstatus', code: 'documents-not-archived' });
    const l = await lock(t, eio.url);
    expect((await t.call('PATCH', eio.url, { status: 'gearchiveerd', lock: l })).statusCode).toBe(200);
    expect(param(await archive())).toMatchObject({ name: 'archiefnominatie', code: 'archiefnominatie-not-set' });

    const eind = (await t.call('GET', zaaktype)).json().statustypen as string[];
    const last = (await Promise.all(eind.map(async (u) => (await t.call('GET', u)).json()))).sort((a, b) => b.volgnummer - a.volgnummer)[0];
    const status = await t.call(
      'POST',
      `${ZRC}/statussen`,
      { zaak: zaak.url, statustype: last.url, datumStatusGezet: '2024-03-05T10:00:00Z' },
      { headers: CRS },
    );
    expect(param(status)).toMatchObject({ code: 'indicatiegebruiksrecht-unset' });
  });

  it('refuse objects that are not there or not of their type (drc-002)', async () => {
    const eio = await createEio(t, eioBody(iot));
    const r1 = await t.call('POST', OIO, {
      informatieobject: eio.url,
      object: 'http://127.0.0.1:8000/zaken/api/v1/zaken/00000000-0000-4000-8000-000000000000',
      objectType: 'zaak',
    });
    expect(param(r1)).toMatchObject({ name: 'object', code: 'bad-url' });
    const r2 = await t.call('POST', OIO, { informatieobject: eio.url, object: `${sl.url}/nergens`, objectType: 'besluit' });
    expect(param(r2)).toMatchObject({ name: 'object', code: 'bad-url' });
  });
});
