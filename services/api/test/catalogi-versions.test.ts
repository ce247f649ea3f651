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
import { ZRC, createZ, zaakBody } from './zaken.fixtures';

/**
 * Relations by omschrijving or identificatie resolve to the one version valid on the date that counts
 * (datumGeldigheid, else today): a published version before a concept, never one that is only valid later; detail
 * and list agree. A zaak checks them on its startdatum.
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

const TODAY = new Date().toISOString().slice(0, 10);

/** A document of a Documenten API (not served here) of one informatieobjecttype, served by the stand-in server. */
let documents = 0;
function document(informatieobjecttype: string, fields: Record<string, unknown> = {}): string {
  return sl.add(`enkelvoudiginformatieobjecten/${++documents}`, { informatieobjecttype, titel: 'document', bronorganisatie: '000000000', ...fields });
}

/**
 * Four versions of one type: ended in 2020, published and valid until 2098, a newer concept valid from 2024 on, and
 * a published one valid only from 2099 on.
 */
async function versions(collection: string, body: (over: Record<string, unknown>) => unknown) {
  const oud = await create(t, collection, body({ beginGeldigheid: '2020-01-01', eindeGeldigheid: '2020-12-31' }));
  const nu = await create(t, collection, body({ beginGeldigheid: '2021-01-01', eindeGeldigheid: '2098-12-31' }));
  const concept = await create(t, collection, body({ beginGeldigheid: '2024-01-01' }));
  const toekomst = await create(t, collection, body({ beginGeldigheid: '2099-01-01' }));
  for (const v of [oud, nu, toekomst]) await publish(t, v.url);
  return { oud: oud.url as string, nu: nu.url as string, concept: concept.url as string, toekomst: toekomst.url as string };
}

type Versions = Awaited<ReturnType<typeof versions>>;

describe('relations by name on Catalogi reads', () => {
  let cat: string;
  let bt: Versions;
  let iot: Versions;
  let deel: Versions;
  let alleenConcept: string;
  let verlopen: string;
  let hoofd: Record<string, any>;
  let metBijlage: Record<string, any>;
  let rt: Record<string, any>;
  let ziotBijlage: Record<string, any>;
  let ziotVerlopen: Record<string, any>;

  beforeAll(async () => {
    cat = await catalogus(t, 'VRS');
    bt = await versions('besluittypen', (over) => besluittypeBody(cat, { omschrijving: 'vergunning', ...over }));
    iot = await versions('informatieobjecttypen', (over) => iotBody(cat, { omschrijving: 'bijlage', ...over }));
    deel = await versions('zaaktypen', (over) => zaaktypeBody(cat, { identificatie: 'DEEL', ...over }));
    alleenConcept = (await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: 'alleen concept', beginGeldigheid: '2020-01-01' }))).url;
    verlopen = (
      await create(
        t,
        'informatieobjecttypen',
        iotBody(cat, { omschrijving: 'verlopen', beginGeldigheid: '2019-01-01', eindeGeldigheid: '2019-12-31' }),
      )
    ).url;
    hoofd = await create(
      t,
      'zaaktypen',
      zaaktypeBody(cat, {
        identificatie: 'HOOFD',
        beginGeldigheid: '2019-01-01',
        besluittypen: ['vergunning', 'alleen concept'],
        deelzaaktypen: ['DEEL'],
        gerelateerdeZaaktypen: [{ zaaktype: 'DEEL', aardRelatie: 'bijdrage', toelichting: '' }],
        selectielijstProcestype: sl.procestype,
      }),
    );
    ziotBijlage = await create(t, 'zaaktype-informatieobjecttypen', {
      zaaktype: hoofd.url,
      informatieobjecttype: 'bijlage',
      volgnummer: 1,
      richting: 'inkomend',
    });
    ziotVerlopen = await create(t, 'zaaktype-informatieobjecttypen', {
      zaaktype: hoofd.url,
      informatieobjecttype: verlopen,
      volgnummer: 2,
      richting: 'inkomend',
    });
    metBijlage = await create(
      t,
      'besluittypen',
      besluittypeBody(cat, { omschrijving: 'met bijlage', beginGeldigheid: '2019-01-01', informatieobjecttypen: ['bijlage'] }),
    );
    rt = await create(t, 'resultaattypen', {
      zaaktype: hoofd.url,
      omschrijving: 'Verleend',
      resultaattypeomschrijving: sl.omschrijving,
      selectielijstklasse: sl.resultaat.vast,
      besluittypen: ['vergunning'],
      brondatumArchiefprocedure: {
        afleidingswijze: 'afgehandeld',
        procestermijn: null,
        datumkenmerk: '',
        einddatumBekend: false,
        objecttype: '',
        registratie: '',
      },
    });
  });

  const relations = (zt: Record<string, any>) => ({
    besluittypen: zt.besluittypen,
    deelzaaktypen: zt.deelzaaktypen,
    gerelateerd: zt.gerelateerdeZaaktypen.map((g: { zaaktype: string }) => g.zaaktype),
    informatieobjecttypen: zt.informatieobjecttypen,
  });

  /** The zaaktype's relations on its detail and on the list page, which must agree. */
  async function zaaktypeOn(datum?: string) {
    const q = datum ? `datumGeldigheid=${datum}` : '';
    const detail = await t.call('GET', `${hoofd.url}?${q}`);
    const list = await t.call('GET', `${ZTC}/zaaktypen?status=alles&catalogus=${cat}&identificatie=HOOFD&${q}`);
    expect(detail.statusCode).toBe(200);
    expect(list.json().results).toHaveLength(1);
    expect(relations(list.json().results[0])).toEqual(relations(detail.json()));
    return relations(detail.json());
  }

  it('zaaktype: the version valid today, a published one before a newer concept, never a future one', async () => {
    expect(await zaaktypeOn()).toEqual({
      besluittypen: [bt.nu, alleenConcept],
      deelzaaktypen: [deel.nu],
      gerelateerd: [deel.nu],
      // `verlopen` has no version valid today: left out.
      informatieobjecttypen: [iot.nu],
    });
    expect(await zaaktypeOn(TODAY)).toEqual(await zaaktypeOn());
  });

  it('zaaktype: datumGeldigheid picks the versions of that day, on detail and list alike', async () => {
    expect(await zaaktypeOn('2020-06-01')).toEqual({
      besluittypen: [bt.oud, alleenConcept],
      deelzaaktypen: [deel.oud],
      gerelateerd: [deel.oud],
      informatieobjecttypen: [iot.oud],
    });
    // From 2099 the published future version is valid; the concept (valid too) still loses to it.
    expect(await zaaktypeOn('2099-06-01')).toEqual({
      besluittypen: [bt.toekomst, alleenConcept],
      deelzaaktypen: [deel.toekomst],
      gerelateerd: [deel.toekomst],
      informatieobjecttypen: [iot.toekomst],
    });
  });

  it('zaaktype: a name without a version valid on the day is left out (a gerelateerd zaaktype shows its identificatie)', async () => {
    expect(await zaaktypeOn('2019-06-01')).toEqual({
      besluittypen: [],
      deelzaaktypen: [],
      gerelateerd: ['DEEL'],
      informatieobjecttypen: [verlopen],
    });
  });

  it('besluittype: its informatieobjecttypen resolve the same way on detail and list', async () => {
    const on = async (datum?: string) => {
      const q = datum ? `datumGeldigheid=${datum}` : '';
      const detail = (await t.call('GET', `${metBijlage.url}?${q}`)).json();
      const list = (await t.call('GET', `${ZTC}/besluittypen?status=alles&catalogus=${cat}&omschrijving=met%20bijlage&${q}`)).json().results;
      expect(list.map((b: { informatieobjecttypen: string[] }) => b.informatieobjecttypen)).toEqual([detail.informatieobjecttypen]);
      return detail.informatieobjecttypen;
    };
    expect(await on()).toEqual([iot.nu]);
    expect(await on('2020-06-01')).toEqual([iot.oud]);
    expect(await on('2099-06-01')).toEqual([iot.toekomst]);
    expect(await on('2019-06-01')).toEqual([]);
  });

  it('resultaattype: its besluittypen resolve the same way on detail and list', async () => {
    expect((await t.call('GET', rt.url)).json().besluittypen).toEqual([bt.nu]);
    const list = async (datum: string) =>
      (await t.call('GET', `${ZTC}/resultaattypen?status=alles&zaaktype=${hoofd.url}&datum_geldigheid=${datum}`)).json().results[0].besluittypen;
    expect(await list('2020-06-01')).toEqual([bt.oud]);
    expect(await list('2099-06-01')).toEqual([bt.toekomst]);
  });

  it('zaaktype-informatieobjecttype: shows the version valid today; without one, the version it was made with', async () => {
    // Made by omschrijving, it keeps today's version (not the newest, future one).
    expect(ziotBijlage.informatieobjecttype).toBe(iot.nu);
    const detail = (await t.call('GET', ziotBijlage.url)).json();
    expect(detail).toMatchObject({ zaaktype: hoofd.url, informatieobjecttype: iot.nu });
    expect((await t.call('GET', ziotVerlopen.url)).json().informatieobjecttype).toBe(verlopen);
    const list = (await t.call('GET', `${ZTC}/zaaktype-informatieobjecttypen?status=alles&zaaktype=${hoofd.url}`)).json().results;
    expect(list.map((z: { informatieobjecttype: string }) => z.informatieobjecttype)).toEqual([iot.nu, verlopen]);
  });

  it('a link follows a new omschrijving of the informatieobjecttype it was made with', async () => {
    const io = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'voorlopig', beginGeldigheid: '2019-01-01' }));
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'HERNOEMD', beginGeldigheid: '2019-01-01' }));
    await create(t, 'zaaktype-informatieobjecttypen', { zaaktype: zt.url, informatieobjecttype: io.url, volgnummer: 1, richting: 'intern' });
    expect((await t.call('PATCH', io.url, { omschrijving: 'definitief' })).statusCode).toBe(200);
    expect((await t.call('GET', zt.url)).json().informatieobjecttypen).toEqual([io.url]);
  });
});

describe('a zaak resolves its zaaktype relations on its startdatum', () => {
  let cat: string;
  let iot: Versions;
  let zaakOud: string;
  let zaakNu: string;
  let ander: string;
  let eind: string;
  let zaaktype: string;

  beforeAll(async () => {
    cat = await catalogus(t, 'VRZ');
    iot = await versions('informatieobjecttypen', (over) => iotBody(cat, { omschrijving: 'aanvraag', ...over }));
    // The same omschrijving in another catalogus is another informatieobjecttype.
    const elders = await catalogus(t, 'VRE');
    ander = (await create(t, 'informatieobjecttypen', iotBody(elders, { omschrijving: 'aanvraag', beginGeldigheid: '2019-01-01' }))).url;
    await publish(t, ander);
    const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'AANVRAAG', beginGeldigheid: '2019-01-01' }));
    await create(t, 'zaaktype-informatieobjecttypen', { zaaktype: zt.url, informatieobjecttype: 'aanvraag', volgnummer: 1, richting: 'inkomend' });
    eind = (await create(t, 'statustypen', { zaaktype: zt.url, omschrijving: 'eind', volgnummer: 1 })).url;
    await publish(t, zt.url);
    zaaktype = zt.url;
    zaakOud = (await createZ(t, 'zaken', zaakBody(zt.url, { startdatum: '2020-06-01' }))).url;
    zaakNu = (await createZ(t, 'zaken', zaakBody(zt.url, { startdatum: TODAY }))).url;
  });

  const relate = (zaak: string, informatieobjecttype: string) =>
    t.call('POST', `${ZRC}/zaakinformatieobjecten`, { zaak, informatieobject: document(informatieobjecttype) });

  it('zrc-017 counts the informatieobjecttype version valid on the startdatum, not today', async () => {
    expect((await relate(zaakOud, iot.oud)).statusCode).toBe(201);
    const later = await relate(zaakOud, iot.nu);
    expect(later.statusCode).toBe(400);
    expect(later.json().invalidParams[0]).toMatchObject({ name: 'nonFieldErrors', code: 'missing-zaaktype-informatieobjecttype-relation' });
    expect((await relate(zaakNu, iot.nu)).statusCode).toBe(201);
    expect((await relate(zaakNu, iot.oud)).statusCode).toBe(400);
  });

  it('zrc-007: a zaak closes only when each informatieobject has an indicatieGebruiksrecht', async () => {
    const close = async (indicatieGebruiksrecht: boolean | null) => {
      const zaak = (await createZ(t, 'zaken', zaakBody(zaaktype, { startdatum: TODAY }))).url;
      expect(
        (await t.call('POST', `${ZRC}/zaakinformatieobjecten`, { zaak, informatieobject: document(iot.nu, { indicatieGebruiksrecht }) })).statusCode,
      ).toBe(201);
      return t.call('POST', `${ZRC}/statussen`, { zaak, statustype: eind, datumStatusGezet: `${TODAY}T10:00:00Z` });
    };
    const refused = await close(null);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().invalidParams[0]).toMatchObject({ name: 'nonFieldErrors', code: 'indicatiegebruiksrecht-unset' });
    expect((await close(false)).statusCode).toBe(201);
  });

  it('shows its zaaktype in expand with the relations of its startdatum', async () => {
    const expanded = async (zaak: string) =>
      (await t.call('GET', `${zaak}?expand=zaaktype`, undefined, { headers: { 'accept-crs': 'EPSG:4326' } })).json()._expand.zaaktype;
    expect((await expanded(zaakOud)).informatieobjecttypen).toEqual([iot.oud]);
    expect((await expanded(zaakNu)).informatieobjecttypen).toEqual([iot.nu]);
    const list = (await t.call('GET', `${ZRC}/zaken?expand=zaaktype`, undefined, { headers: { 'accept-crs': 'EPSG:4326' } })).json().results;
    const byUrl = new Map(
      list.map((z: { url: string; _expand: { zaaktype: { informatieobjecttypen: string[] } } }) => [z.url, z._expand.zaaktype.informatieobjecttypen]),
    );
    expect(byUrl.get(zaakOud)).toEqual([iot.oud]);
    expect(byUrl.get(zaakNu)).toEqual([iot.nu]);
  });

  it('zrc-017 refuses a version valid only later, a concept passed over for a published one, and another catalogus', async () => {
    for (const other of [iot.toekomst, iot.concept, ander]) {
      const res = await relate(zaakNu, other);
      expect(res.statusCode).toBe(400);
      expect(res.json().invalidParams[0].code).toBe('missing-zaaktype-informatieobjecttype-relation');
    }
  });
});
