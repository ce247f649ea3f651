import { createKafka, type Notificatie } from '@zgw/shared';
import type { Consumer } from 'kafkajs';
import { create, publish, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, startApp, type TestApp } from './harness';
import { CRS, createZ, zaakBody } from './zaken.fixtures';
import { BESLUITEN, besluitBody, besluittypeMetDocumenttype, createB } from './besluiten.fixtures';
import { zaaktypeBody } from './catalogi.fixtures';

// Archive dates that stay true (zrc-021): what a closing zaak derives of its archiving, for every afleidingswijze the
// platform derives, follows its source when that changes after the zaak closed, through the API.

let t: TestApp;
let sl: Referentielijsten;
let consumer: Consumer | undefined;

/** The zaaktype, its statustypen, and a resultaattype per afleidingswijze (archiefactietermijn P5Y unless named). */
interface Setup {
  zaaktype: string;
  besluittype: string;
  begin: string;
  eind: string;
  rt: Record<string, string>;
}
let s: Setup;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  const b = await besluittypeMetDocumenttype(t);
  const zt = await create(
    t,
    'zaaktypen',
    zaaktypeBody(b.catalogus, { selectielijstProcestype: sl.procestype, besluittypen: [b.besluittype], informatieobjecttypen: [] }),
  );
  const part = (collection: string, body: Record<string, unknown>) => create(t, collection, { zaaktype: zt.url, ...body });
  const begin = await part('statustypen', { omschrijving: 'begin', volgnummer: 1 });
  const eind = await part('statustypen', { omschrijving: 'eind', volgnummer: 2 });
  // a selectielijst resultaat to keep for good, without a bewaartermijn
  const bewaren = sl.add('resultaten/a6666666-6666-4666-8666-666666666666', {
    procesType: sl.procestype,
    procestermijn: 'vast_te_leggen_datum',
    nummer: 2,
    naam: 'Bewaren',
    waardering: 'blijvend_bewaren',
    bewaartermijn: null,
  });
  const resultaattype = async (omschrijving: string, afleidingswijze: string, over: Record<string, unknown> = {}, rt: Record<string, unknown> = {}) =>
    (
      await part('resultaattypen', {
        omschrijving,
        resultaattypeomschrijving: sl.omschrijving,
        selectielijstklasse: sl.resultaat.vast,
        archiefnominatie: 'vernietigen',
        archiefactietermijn: 'P5Y',
        brondatumArchiefprocedure: {
          afleidingswijze,
          procestermijn: null,
          datumkenmerk: '',
          einddatumBekend: false,
          objecttype: '',
          registratie: '',
          ...over,
        },
        ...rt,
      })
    ).url as string;
  const rt = {
    afgehandeld: await resultaattype('Afgehandeld', 'afgehandeld'),
    afgehandeld10: await resultaattype('Afgehandeld lang', 'afgehandeld', {}, { archiefactietermijn: 'P10Y' }),
    termijn: await resultaattype('Termijn', 'termijn', { procestermijn: 'P2Y' }),
    termijn1: await resultaattype('Termijn kort', 'termijn', { procestermijn: 'P1Y' }),
    hoofdzaak: await resultaattype('Hoofdzaak', 'hoofdzaak'),
    eigenschap: await resultaattype('Eigenschap', 'eigenschap', { datumkenmerk: 'vervaldatum' }),
    ingangsdatum: await resultaattype('Ingang', 'ingangsdatum_besluit'),
    vervaldatum: await resultaattype('Verval', 'vervaldatum_besluit'),
    gerelateerd: await resultaattype('Gerelateerd', 'gerelateerde_zaak'),
    zaakobject: await resultaattype('Zaakobject', 'zaakobject', { objecttype: 'besluit', datumkenmerk: 'datum' }),
    ander: await resultaattype('Ander', 'ander_datumkenmerk', { datumkenmerk: 'iets', objecttype: 'pand', registratie: 'BAG' }),
    bewaren: await resultaattype(
      'Bewaren',
      'eigenschap',
      { datumkenmerk: 'vervaldatum' },
      { selectielijstklasse: bewaren, archiefnominatie: 'blijvend_bewaren', archiefactietermijn: null },
    ),
  };
  await part('eigenschappen', {
    naam: 'vervaldatum',
    definitie: 'de datum waarop de vergunning vervalt',
    specificatie: { formaat: 'datum', lengte: '8', kardinaliteit: '1', waardenverzameling: [] },
  });
  await publish(t, zt.url);
  s = { zaaktype: zt.url, besluittype: b.besluittype, begin: begin.url, eind: eind.url, rt };
}, 120_000);
afterAll(async () => {
  await consumer?.disconnect();
  await t.close();
  await sl.close();
});

jest.setTimeout(120_000);

const get = async (url: string) => (await t.call('GET', url, undefined, { headers: CRS })).json();
const send = async (method: string, url: string, body?: unknown, status = method === 'DELETE' ? 204 : 200) => {
  const res = await t.call(method, url, body, { headers: CRS });
  if (res.statusCode !== status) throw new Error(`${method} ${url} gave ${res.statusCode}: ${res.body}`);
  return res.statusCode === 204 ? undefined : res.json();
};
const zaak = (over: Record<string, unknown> = {}) => createZ(t, 'zaken', zaakBody(s.zaaktype, over));
const status = (zaakUrl: string, statustype: string, dag: string) =>
  createZ(t, 'statussen', { zaak: zaakUrl, statustype, datumStatusGezet: `${dag}T10:00:00Z` });
/** Gives the zaak a resultaat of this resultaattype and closes it on `dag`; returns the resultaat. */
async function sluit(zaakUrl: string, resultaattype: string, dag = '2024-03-05'): Promise<Record<string, any>> {
  const resultaat = await createZ(t, 'resultaten', { zaak: zaakUrl, resultaattype });
  await status(zaakUrl, s.eind, dag);
  return resultaat;
}
const archief = async (zaakUrl: string) => {
  const z = await get(zaakUrl);
  return { archiefnominatie: z.archiefnominatie, archiefactiedatum: z.archiefactiedatum, startdatumBewaartermijn: z.startdatumBewaartermijn };
};
const datum = async (zaakUrl: string) => (await get(zaakUrl)).archiefactiedatum as string | null;
const eigenschapUrl = async () => (await get(`/catalogi/api/v1/eigenschappen?zaaktype=${encodeURIComponent(s.zaaktype)}`)).results[0].url;
const zaakeigenschap = async (zaakUrl: string, waarde: string) =>
  createZ(t, `${zaakUrl}/zaakeigenschappen`, { zaak: zaakUrl, eigenschap: await eigenschapUrl(), waarde });

describe('afgehandeld', () => {
  it('follows a later einddatum and the resultaat: cleared when it goes, derived again when one comes', async () => {
    const z = await zaak();
    const resultaat = await sluit(z.url, s.rt.afgehandeld);
    expect(await archief(z.url)).toEqual({ archiefnominatie: 'vernietigen', archiefactiedatum: '2029-03-05', startdatumBewaartermijn: '2024-03-05' });
    // closed again on a later day (geforceerd-bijwerken)
    await status(z.url, s.eind, '2024-04-10');
    expect(await datum(z.url)).toBe('2029-04-10');
    // the resultaat changes to one kept longer
    await send('PATCH', resultaat.url, { resultaattype: s.rt.afgehandeld10 });
    expect(await datum(z.url)).toBe('2034-04-10');
    await send('DELETE', resultaat.url);
    expect(await archief(z.url)).toEqual({ archiefnominatie: null, archiefactiedatum: null, startdatumBewaartermijn: null });
    await createZ(t, 'resultaten', { zaak: z.url, resultaattype: s.rt.afgehandeld });
    expect(await archief(z.url)).toEqual({ archiefnominatie: 'vernietigen', archiefactiedatum: '2029-04-10', startdatumBewaartermijn: '2024-04-10' });
  });
});

describe('termijn', () => {
  it('follows the procestermijn of the resultaat it has now', async () => {
    const z = await zaak();
    const resultaat = await sluit(z.url, s.rt.termijn);
    // brondatum 2024-03-05 + P2Y, then P5Y
    expect(await archief(z.url)).toMatchObject({ archiefactiedatum: '2031-03-05', startdatumBewaartermijn: '2026-03-05' });
    await send('PUT', resultaat.url, { zaak: z.url, resultaattype: s.rt.termijn1 });
    expect(await archief(z.url)).toMatchObject({ archiefactiedatum: '2030-03-05', startdatumBewaartermijn: '2025-03-05' });
  });
});

describe('hoofdzaak', () => {
  it('follows the einddatum of the hoofdzaak: reopened, closed again later', async () => {
    const hoofd = await zaak();
    await sluit(hoofd.url, s.rt.afgehandeld, '2024-02-01');
    const deel = await zaak({ hoofdzaak: hoofd.url });
    await sluit(deel.url, s.rt.hoofdzaak, '2024-03-05');
    expect(await datum(deel.url)).toBe('2029-02-01');
    await status(hoofd.url, s.begin, '2024-03-06');
    expect(await archief(deel.url)).toEqual({ archiefnominatie: 'vernietigen', archiefactiedatum: null, startdatumBewaartermijn: null });
    await status(hoofd.url, s.eind, '2024-04-10');
    expect(await datum(deel.url)).toBe('2029-04-10');
  });
});

describe('eigenschap', () => {
  it('reads the date in the forms of a datum and datum-tijd eigenschap (YYYYMMDD, YYYYMMDDhhmmss) and ISO 8601', async () => {
    for (const [waarde, verwacht] of [
      ['20260301', '2031-03-01'],
      ['20260301134022', '2031-03-01'],
      ['2026-03-01', '2031-03-01'],
      ['20260230', null],
    ] as const) {
      const z = await zaak();
      await zaakeigenschap(z.url, waarde);
      await sluit(z.url, s.rt.eigenschap);
      expect([waarde, await datum(z.url)]).toEqual([waarde, verwacht]);
    }
  });

  it("follows the zaakeigenschap's waarde: changed, added, removed", async () => {
    const z = await zaak();
    // (first in the form read before: what this shows is the following)
    const ze = await zaakeigenschap(z.url, '2026-03-01');
    await sluit(z.url, s.rt.eigenschap);
    expect(await datum(z.url)).toBe('2031-03-01');
    await send('PATCH', ze.url, { waarde: '20270415' });
    expect(await archief(z.url)).toMatchObject({ archiefactiedatum: '2032-04-15', startdatumBewaartermijn: '2027-04-15' });
    const later = await zaakeigenschap(z.url, '20280101120000');
    expect(await datum(z.url)).toBe('2033-01-01');
    await send('DELETE', later.url);
    expect(await datum(z.url)).toBe('2032-04-15');
    await send('DELETE', ze.url);
    expect(await archief(z.url)).toEqual({ archiefnominatie: 'vernietigen', archiefactiedatum: null, startdatumBewaartermijn: null });
  });

  it('notifies the change as a zaak update, with its entry in the audit trail', async () => {
    const z = await zaak();
    const ze = await zaakeigenschap(z.url, '2026-03-01');
    await sluit(z.url, s.rt.eigenschap);
    await send('PATCH', ze.url, { waarde: '20270415' });
    const trail = ((await get(`${z.url}/audittrail`)) as Record<string, any>[]).filter((e) => e.resource === 'zaak');
    expect(trail.at(-1)).toMatchObject({
      actie: 'partial_update',
      resourceUrl: z.url,
      wijzigingen: { oud: { archiefactiedatum: '2031-03-01' }, nieuw: { archiefactiedatum: '2032-04-15' } },
    });

    expect(await eventually(async () => (await t.mongo.db.collection('outbox').countDocuments({})) === 0, 60_000)).toBe(true);
    const seen: Notificatie[] = [];
    consumer = createKafka(t.config.KAFKA_BROKERS, 'archief-volgen').consumer({ groupId: `${t.topicPrefix}archief-volgen` });
    await consumer.connect();
    await consumer.subscribe({ topic: `${t.topicPrefix}zaken`, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString()) as Notificatie) });
    const ofZaak = () => seen.filter((n) => n.resourceUrl === z.url);
    expect(await eventually(async () => ofZaak().some((n) => n.actie === 'partial_update'), 60_000)).toBe(true);
    expect(ofZaak().map((n) => n.actie)).toEqual(['create', 'partial_update']);
    expect(ofZaak()[1]).toMatchObject({ kanaal: 'zaken', resource: 'zaak', hoofdObject: z.url, kenmerken: { zaaktype: s.zaaktype } });
  });

  it('is recomputed by the follow-up sweep when the process stopped between the waarde and the zaak', async () => {
    const zaken = t.deps.components.zaken!;
    const z = await zaak();
    const ze = await zaakeigenschap(z.url, '2026-03-01');
    await sluit(z.url, s.rt.eigenschap);
    // the process "stops" right after storing the new waarde: the zaak is not updated
    const update = zaken.zaken.update;
    zaken.zaken.update = async () => {
      zaken.zaken.update = update;
      throw new Error('process stopped');
    };
    expect((await t.call('PATCH', ze.url, { waarde: '20270415' }, { headers: CRS })).statusCode).toBe(500);
    expect((await get(ze.url)).waarde).toBe('20270415');
    expect(await datum(z.url)).toBe('2031-03-01');
    expect(await zaken.zaken.settle(0)).toBeGreaterThanOrEqual(1);
    expect(await datum(z.url)).toBe('2032-04-15');
    expect(await zaken.zaken.store.raw.countDocuments({ _id: z.uuid, _follow: { $exists: true } })).toBe(0);
  });

  it('blijvend_bewaren without an archiefactietermijn keeps null dates', async () => {
    const z = await zaak();
    const ze = await zaakeigenschap(z.url, '20260301');
    await sluit(z.url, s.rt.bewaren);
    expect(await archief(z.url)).toEqual({ archiefnominatie: 'blijvend_bewaren', archiefactiedatum: null, startdatumBewaartermijn: null });
    await send('PATCH', ze.url, { waarde: '20270415' });
    expect(await archief(z.url)).toEqual({ archiefnominatie: 'blijvend_bewaren', archiefactiedatum: null, startdatumBewaartermijn: null });
  });

  it('a date a client sets by hand stays when the source changes', async () => {
    const z = await zaak();
    const ze = await zaakeigenschap(z.url, '20260301');
    await sluit(z.url, s.rt.eigenschap);
    await send('PATCH', z.url, { archiefactiedatum: '2045-01-01' });
    await send('PATCH', ze.url, { waarde: '20270415' });
    expect(await archief(z.url)).toEqual({ archiefnominatie: 'vernietigen', archiefactiedatum: '2045-01-01', startdatumBewaartermijn: '2026-03-01' });
  });

  it('stays once the zaak is archived', async () => {
    const z = await zaak();
    const ze = await zaakeigenschap(z.url, '20260301');
    await sluit(z.url, s.rt.eigenschap);
    await send('PATCH', z.url, { archiefstatus: 'gearchiveerd' });
    await send('PATCH', ze.url, { waarde: '20270415' });
    expect(await datum(z.url)).toBe('2031-03-01');
  });
});

describe('ingangsdatum_besluit', () => {
  it('follows the besluiten: created, changed, deleted', async () => {
    const z = await zaak();
    const eerste = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: z.url, ingangsdatum: '2024-02-20' }));
    await sluit(z.url, s.rt.ingangsdatum);
    expect(await datum(z.url)).toBe('2029-02-20');
    await send('PATCH', eerste.url, { ingangsdatum: '2024-06-01' });
    expect(await datum(z.url)).toBe('2029-06-01');
    const tweede = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: z.url, ingangsdatum: '2024-09-01' }));
    expect(await datum(z.url)).toBe('2029-09-01');
    await send('DELETE', tweede.url);
    expect(await datum(z.url)).toBe('2029-06-01');
    // a besluit moved to another zaak leaves this one
    const ander = await zaak();
    await send('PATCH', eerste.url, { zaak: ander.url });
    expect(await datum(z.url)).toBeNull();
  });

  it('is recomputed by the follow-up sweep when the process stopped between the besluit and the zaak', async () => {
    const zaken = t.deps.components.zaken!;
    const z = await zaak();
    const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: z.url, ingangsdatum: '2024-02-20' }));
    await sluit(z.url, s.rt.ingangsdatum);
    const link = zaken.besluitLinks.link;
    zaken.besluitLinks.link = async () => {
      zaken.besluitLinks.link = link;
      throw new Error('process stopped');
    };
    expect((await t.call('PATCH', besluit.url, { ingangsdatum: '2024-06-01' })).statusCode).toBe(500);
    expect(await datum(z.url)).toBe('2029-02-20');
    expect(await zaken.zaken.settle(0)).toBeGreaterThanOrEqual(1);
    expect(await datum(z.url)).toBe('2029-06-01');
  });
});

describe('vervaldatum_besluit', () => {
  it('follows the latest vervaldatum, the day itself as zrc-021 says', async () => {
    const z = await zaak();
    const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: z.url, vervaldatum: '2031-06-30', vervalreden: 'tijdelijk' }));
    await sluit(z.url, s.rt.vervaldatum);
    expect(await archief(z.url)).toMatchObject({ archiefactiedatum: '2036-06-30', startdatumBewaartermijn: '2031-06-30' });
    await send('PUT', besluit.url, besluitBody(s.besluittype, { zaak: z.url, vervaldatum: '2032-01-15', vervalreden: 'tijdelijk' }));
    expect(await datum(z.url)).toBe('2037-01-15');
    await send('DELETE', besluit.url);
    expect(await datum(z.url)).toBeNull();
  });
});

describe('gerelateerde_zaak', () => {
  it('follows the einddatum of the relevanteAndereZaken and the list itself', async () => {
    const eerder = await zaak();
    await sluit(eerder.url, s.rt.afgehandeld, '2023-12-01');
    const z = await zaak({ relevanteAndereZaken: [{ url: eerder.url, aardRelatie: 'vervolg' }] });
    await sluit(z.url, s.rt.gerelateerd);
    expect(await datum(z.url)).toBe('2028-12-01');
    // the related zaak closed again on a later day
    await status(eerder.url, s.eind, '2024-01-15');
    expect(await datum(z.url)).toBe('2029-01-15');
    // another relevante zaak, closed later still
    const later = await zaak();
    await sluit(later.url, s.rt.afgehandeld, '2024-02-29');
    await send('PATCH', z.url, {
      relevanteAndereZaken: [
        { url: eerder.url, aardRelatie: 'vervolg' },
        { url: later.url, aardRelatie: 'bijdrage' },
      ],
    });
    expect(await datum(z.url)).toBe('2029-02-28');
  });
});

describe('zaakobject', () => {
  it('follows its zaakobjecten: created, changed, deleted', async () => {
    const oud = await createB(t, BESLUITEN, besluitBody(s.besluittype, { datum: '2023-11-15' }));
    const nieuw = await createB(t, BESLUITEN, besluitBody(s.besluittype, { datum: '2024-01-20' }));
    const z = await zaak();
    const zo = await createZ(t, 'zaakobjecten', { zaak: z.url, object: oud.url, objectType: 'besluit', relatieomschrijving: 'besluit' });
    await sluit(z.url, s.rt.zaakobject);
    expect(await datum(z.url)).toBe('2028-11-15');
    await send('PATCH', zo.url, { object: nieuw.url });
    expect(await datum(z.url)).toBe('2029-01-20');
    const tweede = await createZ(t, 'zaakobjecten', { zaak: z.url, object: oud.url, objectType: 'besluit', relatieomschrijving: 'ander' });
    expect(await datum(z.url)).toBe('2029-01-20');
    await send('DELETE', zo.url);
    expect(await datum(z.url)).toBe('2028-11-15');
    await send('DELETE', tweede.url);
    expect(await datum(z.url)).toBeNull();
  });

  it('follows the besluit a zaakobject points at: its datum changed, the besluit deleted', async () => {
    const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { datum: '2023-11-15' }));
    const z = await zaak();
    await createZ(t, 'zaakobjecten', { zaak: z.url, object: besluit.url, objectType: 'besluit', relatieomschrijving: 'besluit' });
    await sluit(z.url, s.rt.zaakobject);
    expect(await datum(z.url)).toBe('2028-11-15');
    await send('PATCH', besluit.url, { datum: '2023-12-20' });
    expect(await datum(z.url)).toBe('2028-12-20');
    await send('DELETE', besluit.url);
    expect(await datum(z.url)).toBeNull();
  });
});

describe('ander_datumkenmerk', () => {
  it('is set by hand and stays', async () => {
    const z = await zaak();
    await zaakeigenschap(z.url, '20260301');
    await sluit(z.url, s.rt.ander);
    expect(await archief(z.url)).toEqual({ archiefnominatie: 'vernietigen', archiefactiedatum: null, startdatumBewaartermijn: null });
    await send('PATCH', z.url, { archiefactiedatum: '2040-01-01' });
    await zaakeigenschap(z.url, '20270415');
    expect(await datum(z.url)).toBe('2040-01-01');
  });
});
