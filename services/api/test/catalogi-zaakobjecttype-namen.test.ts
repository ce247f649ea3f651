import { catalogus, create, zaaktypeBody, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';

/** Catalogi 1.3.3 names a zaakobjecttype's resultaattypen beside their URLs, in their order (read in one query). */
let t: TestApp;
let sl: Referentielijsten;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
});
afterAll(async () => {
  await t?.close();
  await sl?.close();
});

it("names a zaakobjecttype's resultaattypen in 1.3.3, in the order of their URLs", async () => {
  const cat = await catalogus(t, 'ZOTN');
  const zaaktype = await create(t, 'zaaktypen', zaaktypeBody(cat, { identificatie: 'ZT-ZOT', selectielijstProcestype: sl.procestype }));
  const resultaattype = (omschrijving: string) =>
    create(t, 'resultaattypen', {
      zaaktype: zaaktype.url,
      omschrijving,
      resultaattypeomschrijving: sl.omschrijving,
      selectielijstklasse: sl.resultaat.nihil,
      archiefnominatie: 'vernietigen',
      archiefactietermijn: 'P10Y',
      brondatumArchiefprocedure: {
        afleidingswijze: 'afgehandeld',
        procestermijn: null,
        datumkenmerk: '',
        einddatumBekend: false,
        objecttype: '',
        registratie: '',
      },
    });
  const verleend = await resultaattype('Verleend');
  const geweigerd = await resultaattype('Geweigerd');
  const zaakobjecttype = await create(t, 'zaakobjecttypen', {
    zaaktype: zaaktype.url,
    catalogus: cat,
    anderObjecttype: false,
    objecttype: 'https://objecttypen.example/api/v2/objecttypes/1',
    relatieOmschrijving: 'locatie',
    beginGeldigheid: '2020-01-01',
    resultaattypen: [geweigerd.url, verleend.url],
  });
  const res = await t.call('GET', zaakobjecttype.url, undefined, { headers: { 'api-version': '1.3.3' } });
  expect(res.json().resultaattypeOmschrijving).toEqual(['Geweigerd', 'Verleend']);
  expect((await t.call('GET', zaakobjecttype.url)).json()).not.toHaveProperty('resultaattypeOmschrijving');
});
