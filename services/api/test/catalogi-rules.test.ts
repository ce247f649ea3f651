import { startApp, type TestApp } from './harness';
import {
  ZTC,
  besluittypeBody,
  catalogus,
  create,
  iotBody,
  limitedClient,
  publish,
  startReferentielijsten,
  zaaktypeBody,
  type Referentielijsten,
} from './catalogi.fixtures';

let t: TestApp;
let sl: Referentielijsten;
let limited: string;
let forced: string;
let cat: string;
let n = 0;
const ident = () => `R-${++n}`;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  limited = await limitedClient(t);
  forced = await limitedClient(t, 'ztc-forced', [
    'catalogi.lezen',
    'catalogi.schrijven',
    'catalogi.geforceerd-schrijven',
    'catalogi.geforceerd-verwijderen',
  ]);
  cat = await catalogus(t, 'RUL');
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const first = (res: { json(): any }) => res.json().invalidParams?.[0];

describe('ztc-009: published types only change with the geforceerd scopes', () => {
  it('zaaktype: no update or delete, except ending its geldigheid; forced scopes may', async () => {
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: ident() }));
    await publish(t, zt.url);
    const put = await t.call('PUT', zt.url, zaaktypeBody(cat, { identificatie: zt.identificatie, doel: 'anders' }), { token: limited });
    expect(put.statusCode).toBe(400);
    expect(first(put)).toMatchObject({ name: 'nonFieldErrors', code: 'non-concept-object' });
    expect(first(await t.call('PATCH', zt.url, { omschrijving: 'x' }, { token: limited }))).toMatchObject({ code: 'non-concept-object' });
    const ending = await t.call('PATCH', zt.url, { eindeGeldigheid: '2030-12-12' }, { token: limited });
    expect(ending.statusCode).toBe(200);
    expect(ending.json().eindeGeldigheid).toBe('2030-12-12');
    expect(first(await t.call('DELETE', zt.url, undefined, { token: limited }))).toMatchObject({ code: 'non-concept-object' });

    const forcedPatch = await t.call('PATCH', zt.url, { omschrijving: 'geforceerd' }, { token: forced });
    expect(forcedPatch.statusCode).toBe(200);
    expect(forcedPatch.json()).toMatchObject({ omschrijving: 'geforceerd', concept: false });
    expect((await t.call('DELETE', zt.url, undefined, { token: forced })).statusCode).toBe(204);
  });

  it('besluittype and informatieobjecttype follow the same rules', async () => {
    for (const [collection, body] of [
      ['besluittypen', besluittypeBody(cat, { omschrijving: 'pub-b' })],
      ['informatieobjecttypen', iotBody(cat, { omschrijving: 'pub-i' })],
    ] as const) {
      const obj = await create(t, collection, body);
      await publish(t, obj.url);
      expect(first(await t.call('PUT', obj.url, { ...body, toelichting: 'x', omschrijving: 'y' }, { token: limited }))).toMatchObject({
        code: 'non-concept-object',
      });
      expect(first(await t.call('PATCH', obj.url, { omschrijving: 'x' }, { token: limited }))).toMatchObject({ code: 'non-concept-object' });
      expect((await t.call('PATCH', obj.url, { eindeGeldigheid: '2031-01-01' }, { token: limited })).statusCode).toBe(200);
      expect(first(await t.call('DELETE', obj.url, undefined, { token: limited }))).toMatchObject({ code: 'non-concept-object' });
      expect((await t.call('DELETE', obj.url, undefined, { token: forced })).statusCode).toBe(204);
    }
  });

  it('scopes per operation: reading needs catalogi.lezen (or zaken/documenten.lezen for zaaktypen), writing catalogi.schrijven', async () => {
    const reader = await limitedClient(t, 'ztc-reader', ['catalogi.lezen']);
    const zakenReader = await limitedClient(t, 'zrc-reader', ['zaken.lezen']);
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: ident() }));
    expect((await t.call('GET', zt.url, undefined, { token: reader })).statusCode).toBe(200);
    expect((await t.call('GET', zt.url, undefined, { token: zakenReader })).statusCode).toBe(200);
    expect((await t.call('GET', `${ZTC}/besluittypen`, undefined, { token: zakenReader })).statusCode).toBe(403);
    expect((await t.call('POST', `${ZTC}/zaaktypen`, zaaktypeBody(cat), { token: reader })).statusCode).toBe(403);
    expect((await t.call('POST', `${zt.url}/publish`, undefined, { token: reader })).statusCode).toBe(403);
    expect((await t.call('GET', zt.url, undefined, { token: null })).statusCode).toBe(401);
  });
});

describe('ztc-010/011: concept types and their published relations', () => {
  it('a concept besluittype related to a published informatieobjecttype cannot change or go', async () => {
    const iot = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'rel-iot' }));
    const bt = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'rel-bt', informatieobjecttypen: [iot.url] }));
    await publish(t, iot.url);
    expect(first(await t.call('PATCH', bt.url, { toelichting: 'x' }, { token: limited }))).toMatchObject({ code: 'non-concept-relation' });
    expect((await t.call('PATCH', bt.url, { eindeGeldigheid: '2022-01-01' }, { token: limited })).statusCode).toBe(200);
    expect(first(await t.call('DELETE', bt.url, undefined, { token: limited }))).toMatchObject({ code: 'non-concept-relation' });
    // A new relation to a published informatieobjecttype is refused as well.
    const res = await t.call('POST', `${ZTC}/besluittypen`, besluittypeBody(cat, { omschrijving: 'rel-bt2', informatieobjecttypen: [iot.url] }), {
      token: limited,
    });
    expect(first(res)).toMatchObject({ name: 'nonFieldErrors', code: 'non-concept-relation' });
  });

  it('parts of a published zaaktype: non-concept-zaaktype on create, update and delete', async () => {
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: ident() }));
    const rol = await create(t, 'roltypen', { zaaktype: zt.url, omschrijving: 'r', omschrijvingGeneriek: 'adviseur' });
    await publish(t, zt.url);
    expect(first(await t.call('PATCH', rol.url, { omschrijving: 'x' }, { token: limited }))).toMatchObject({ code: 'non-concept-zaaktype' });
    expect(first(await t.call('DELETE', rol.url, undefined, { token: limited }))).toMatchObject({ code: 'non-concept-zaaktype' });
    const created = await t.call('POST', `${ZTC}/statustypen`, { zaaktype: zt.url, omschrijving: 's', volgnummer: 1 }, { token: limited });
    expect(first(created)).toMatchObject({ name: 'nonFieldErrors', code: 'non-concept-zaaktype' });
    expect((await t.call('PATCH', rol.url, { omschrijving: 'x' }, { token: forced })).statusCode).toBe(200);
    // After publishing, the parts count as definitief in the status filter.
    expect((await t.call('GET', `${ZTC}/roltypen?zaaktype=${zt.url}`)).json().count).toBe(1);
    expect((await t.call('GET', `${ZTC}/roltypen?zaaktype=${zt.url}&status=concept`)).json().count).toBe(0);
  });

  it('zaaktype-informatieobjecttype: only refused when both sides are published', async () => {
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: ident() }));
    const iot = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'ziot-iot' }));
    await publish(t, zt.url);
    const link = await create(
      t,
      'zaaktype-informatieobjecttypen',
      { zaaktype: zt.url, informatieobjecttype: iot.url, volgnummer: 1, richting: 'inkomend' },
      { token: limited },
    );
    expect((await t.call('PATCH', link.url, { volgnummer: 2 }, { token: limited })).statusCode).toBe(200);
    // The link is concept until both sides are published (status filter).
    const count = async (status: string) =>
      (await t.call('GET', `${ZTC}/zaaktype-informatieobjecttypen?zaaktype=${zt.url}&status=${status}`)).json().count;
    expect([await count('concept'), await count('definitief')]).toEqual([1, 0]);
    await publish(t, iot.url);
    expect([await count('concept'), await count('definitief'), await count('alles')]).toEqual([0, 1, 1]);
    expect(first(await t.call('PATCH', link.url, { volgnummer: 3 }, { token: limited }))).toMatchObject({ code: 'non-concept-relation' });
    expect(first(await t.call('DELETE', link.url, undefined, { token: limited }))).toMatchObject({ code: 'non-concept-relation' });
    const again = await t.call(
      'POST',
      `${ZTC}/zaaktype-informatieobjecttypen`,
      { zaaktype: zt.url, informatieobjecttype: iot.url, volgnummer: 1, richting: 'inkomend' },
      { token: limited },
    );
    expect(first(again)).toMatchObject({ code: 'non-concept-relation' });
  });

  it('a concept zaaktype cannot get a published besluittype by URL without the forced scope', async () => {
    const bt = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'pub-for-zt' }));
    await publish(t, bt.url);
    const res = await t.call('POST', `${ZTC}/zaaktypen`, zaaktypeBody(cat, { identificatie: ident(), besluittypen: [bt.url] }), { token: limited });
    expect(first(res)).toMatchObject({ name: 'nonFieldErrors', code: 'non-concept-relation' });
  });
});

describe('ztc-012: publishing a zaaktype needs published relations', () => {
  it('refuses with concept-relation while a besluittype or informatieobjecttype is still concept', async () => {
    const bt = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'pub-check' }));
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: ident(), besluittypen: ['pub-check'] }));
    const refused = await t.call('POST', `${zt.url}/publish`);
    expect(refused.statusCode).toBe(400);
    expect(first(refused)).toMatchObject({ code: 'concept-relation' });
    await publish(t, bt.url);
    const iot = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'pub-check-iot' }));
    await create(t, 'zaaktype-informatieobjecttypen', { zaaktype: zt.url, informatieobjecttype: iot.url, volgnummer: 1, richting: 'inkomend' });
    expect(first(await t.call('POST', `${zt.url}/publish`))).toMatchObject({ code: 'concept-relation' });
    await publish(t, iot.url);
    await publish(t, zt.url);
    expect((await t.call('GET', zt.url)).json().concept).toBe(false);
  });
});

describe('ztc-013: relations stay within one catalogus', () => {
  it('refuses besluittypen, zaaktypen and zaaktype-informatieobjecttypen that cross catalogussen', async () => {
    const other = await catalogus(t, 'OTH');
    const iot2 = await create(t, 'informatieobjecttypen', iotBody(other, { omschrijving: 'elders' }));
    const bt2 = await create(t, 'besluittypen', besluittypeBody(other, { omschrijving: 'elders' }));
    const bt = await t.call('POST', `${ZTC}/besluittypen`, besluittypeBody(cat, { informatieobjecttypen: [iot2.url] }));
    expect(first(bt)).toMatchObject({ name: 'nonFieldErrors', code: 'relations-incorrect-catalogus' });
    const zt = await t.call('POST', `${ZTC}/zaaktypen`, zaaktypeBody(cat, { identificatie: ident(), besluittypen: [bt2.url] }));
    expect(first(zt)).toMatchObject({ name: 'nonFieldErrors', code: 'relations-incorrect-catalogus' });
    const own = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: ident() }));
    const patch = await t.call('PATCH', own.url, { besluittypen: [bt2.url] });
    expect(first(patch)).toMatchObject({ code: 'relations-incorrect-catalogus' });
    // besluittype.zaaktypen is read-only, but a zaaktype of another catalogus in it is still refused.
    const zt2 = await create(t, 'zaaktypen', zaaktypeBody(other, { identificatie: ident() }));
    const btOwn = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'eigen', zaaktypen: [own.url] }));
    expect(first(await t.call('PATCH', btOwn.url, { zaaktypen: [zt2.url] }))).toMatchObject({ code: 'relations-incorrect-catalogus' });
    const link = await t.call('POST', `${ZTC}/zaaktype-informatieobjecttypen`, {
      zaaktype: own.url,
      informatieobjecttype: iot2.url,
      volgnummer: 1,
      richting: 'inkomend',
    });
    expect(first(link)).toMatchObject({ name: 'nonFieldErrors', code: 'relations-incorrect-catalogus' });
  });
});

describe('1.3 history model', () => {
  it('seed rule: PATCH stores a besluittype relation by omschrijving that does not exist yet; it resolves once it does', async () => {
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: ident() }));
    const patch = await t.call('PATCH', zt.url, { besluittypen: ['nog niet aangemaakt'] });
    expect(patch.statusCode).toBe(200);
    expect(patch.json().besluittypen).toEqual([]);
    const bt = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'nog niet aangemaakt' }));
    expect((await t.call('GET', zt.url)).json().besluittypen).toEqual([bt.url]);
    expect((await t.call('GET', bt.url)).json().zaaktypen).toEqual([zt.url]);
    // The relation is kept through later unrelated edits.
    expect((await t.call('PATCH', zt.url, { toelichting: 'iets' })).json().besluittypen).toEqual([bt.url]);
  });

  it('a besluittype in another catalogus with the same omschrijving does not resolve', async () => {
    const other = await catalogus(t, 'HIS');
    await create(t, 'besluittypen', besluittypeBody(other, { omschrijving: 'alleen elders' }));
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: ident(), besluittypen: ['alleen elders'] }));
    expect(zt.besluittypen).toEqual([]);
  });

  it('relations by identificatie (deelzaaktypen, gerelateerdeZaaktypen) and omschrijving (informatieobjecttypen) resolve to URLs', async () => {
    const deel = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'DEEL-1' }));
    const iot = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'hist-iot' }));
    const bt = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'hist-bt', informatieobjecttypen: ['hist-iot'] }));
    expect(bt.informatieobjecttypen).toEqual([iot.url]);
    const zt = await create(
      t,
      'zaaktypen',
      zaaktypeBody(cat, {
        identificatie: ident(),
        besluittypen: ['hist-bt'],
        deelzaaktypen: ['DEEL-1'],
        gerelateerdeZaaktypen: [{ zaaktype: 'DEEL-1', aard_relatie: 'bijdrage', toelichting: 't' }],
      }),
    );
    expect(zt).toMatchObject({
      besluittypen: [bt.url],
      deelzaaktypen: [deel.url],
      gerelateerdeZaaktypen: [{ zaaktype: deel.url, aardRelatie: 'bijdrage', toelichting: 't' }],
    });
    // A newer version of the deelzaaktype (same identificatie, later beginGeldigheid) takes over.
    const newer = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'DEEL-1', beginGeldigheid: '2024-01-01' }));
    expect((await t.call('GET', zt.url)).json().deelzaaktypen).toEqual([newer.url]);
    // datumGeldigheid picks the version valid on that date.
    const onDate = await t.call('GET', `${ZTC}/zaaktypen?status=alles&identificatie=DEEL-1&datumGeldigheid=2021-06-01&catalogus=${cat}`);
    expect(onDate.json().results.map((r: { url: string }) => r.url)).toEqual([deel.url]);
  });
});
