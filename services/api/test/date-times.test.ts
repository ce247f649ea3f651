import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { createEio, eioBody, informatieobjecttype } from './documenten.fixtures';
import { startApp, type TestApp } from './harness';
import { createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

/**
 * A date in a date-time field (as clients of other implementations send it, and both peers accept it) is the start
 * of that day in the Netherlands, answered as the full date-time in UTC: 00:00 is 22:00 or 23:00 UTC the day before.
 */
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

test('laatsteBetaaldatum "2019-08-24" (summer) is 2019-08-23T22:00:00Z; a datumStatusGezet in winter 23:00 UTC', async () => {
  const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype, { betalingsindicatie: 'geheel', laatsteBetaaldatum: '2019-08-24' }));
  expect(zaak.laatsteBetaaldatum).toBe('2019-08-23T22:00:00Z');
  const status = await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-01-10' });
  expect(status.datumStatusGezet).toBe('2024-01-09T23:00:00Z');
});

test('a gebruiksrecht with startdatum "2024-03-31" (the day the clocks go forward, at 02:00) starts at 2024-03-30T23:00:00Z; nonsense stays a 400', async () => {
  const doc = await createEio(t, eioBody(await informatieobjecttype(t)));
  const res = await t.call('POST', '/documenten/api/v1/gebruiksrechten', {
    informatieobject: doc.url,
    startdatum: '2024-03-31',
    omschrijvingVoorwaarden: 'x',
  });
  expect(res.statusCode).toBe(201);
  expect(res.json().startdatum).toBe('2024-03-30T23:00:00Z');
  for (const bad of ['2024-13-01', '24-03-2024', '2024-03-31T25:00:00Z']) {
    const refused = await t.call('POST', '/documenten/api/v1/gebruiksrechten', {
      informatieobject: doc.url,
      startdatum: bad,
      omschrijvingVoorwaarden: 'x',
    });
    expect(refused.statusCode).toBe(400);
  }
});
