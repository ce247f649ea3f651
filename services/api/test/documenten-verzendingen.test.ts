import { DRC, EIO, createEio, drcClient, eioBody, informatieobjecttype } from './documenten.fixtures';
import { startApp, token, type TestApp } from './harness';

// Verzendingen of documents (paginated, every filter) and `expand` on documents and their objects.
let t: TestApp;
let iot: string;

beforeAll(async () => {
  t = await startApp();
  iot = await informatieobjecttype(t);
});
afterAll(async () => {
  await t.close();
});

const VZ = `${DRC}/verzendingen`;
const verzending = (informatieobject: string, over: Record<string, unknown> = {}) => ({
  informatieobject,
  betrokkene: 'https://klanten.example.org/api/v1/klanten/1',
  aardRelatie: 'geadresseerde',
  verzenddatum: '2024-03-04',
  contactPersoon: 'https://medewerkers.example.org/api/v1/medewerkers/7',
  binnenlandsCorrespondentieadres: { huisnummer: 12, naamOpenbareRuimte: 'Dorpsstraat', woonplaatsnaam: 'Ons Dorp' },
  ...over,
});

it('keeps verzendingen of a document, filtered by aardRelatie, informatieobject and betrokkene, and removes them with it', async () => {
  const eio = await createEio(t, eioBody(iot));
  const res = await t.call('POST', VZ, verzending(eio.url));
  expect(res.statusCode).toBe(201);
  const vz = res.json();
  expect(vz).toMatchObject({ aardRelatie: 'geadresseerde', mijnOverheid: false, emailadres: null, toelichting: '' });
  const afzender = (
    await t.call('POST', VZ, verzending(eio.url, { aardRelatie: 'afzender', betrokkene: 'https://klanten.example.org/api/v1/klanten/2' }))
  ).json();
  const urls = async (q: string) => ((await t.call('GET', `${VZ}?${q}`)).json().results as { url: string }[]).map((r) => r.url);
  expect(await urls('aardRelatie=afzender')).toEqual([afzender.url]);
  expect(await urls(`betrokkene=${encodeURIComponent('https://klanten.example.org/api/v1/klanten/1')}`)).toEqual([vz.url]);
  expect(await urls(`informatieobject=${encodeURIComponent(eio.url)}`)).toEqual([vz.url, afzender.url]);
  expect((await t.call('PATCH', vz.url, { toelichting: 'per post' })).json().toelichting).toBe('per post');
  expect((await t.call('POST', VZ, verzending(eio.url, { aardRelatie: 'ontvanger' }))).statusCode).toBe(400);
  expect((await t.call('DELETE', eio.url)).statusCode).toBe(204);
  expect((await t.call('GET', vz.url)).statusCode).toBe(404);
});

it('hides verzendingen of documents a client may not read', async () => {
  const other = await informatieobjecttype(t);
  const eio = await createEio(t, eioBody(other));
  await t.call('POST', VZ, verzending(eio.url));
  await drcClient(t, 'vz-reader', [{ scopes: ['documenten.lezen'], informatieobjecttype: iot, maxVertrouwelijkheidaanduiding: 'geheim' }]);
  const reader = token('vz-reader', 'vz-reader-secret');
  const res = await t.call('GET', `${VZ}?informatieobject=${encodeURIComponent(eio.url)}`, undefined, { token: reader });
  expect(res.json()).toMatchObject({ count: 0, results: [] });
  const mine = await createEio(t, eioBody(iot));
  const vz = (await t.call('POST', VZ, verzending(mine.url, { betrokkene: 'https://klanten.example.org/api/v1/klanten/99' }))).json();
  for (const q of [
    `informatieobject=${encodeURIComponent(mine.url)}`,
    `betrokkene=${encodeURIComponent(vz.betrokkene)}`,
    'aardRelatie=geadresseerde',
  ]) {
    const found = (await t.call('GET', `${VZ}?${q}`, undefined, { token: reader })).json();
    expect(found.results.map((r: { url: string }) => r.url)).toContain(vz.url);
    expect(found.results.every((r: { informatieobject: string }) => r.informatieobject !== eio.url)).toBe(true);
  }
});

it('expands a document into its informatieobjecttype and deeper Catalogi objects', async () => {
  const eio = await createEio(t, eioBody(iot));
  const detail = (await t.call('GET', `${eio.url}?expand=informatieobjecttype.catalogus`)).json();
  expect(detail._expand.informatieobjecttype).toMatchObject({ url: iot });
  expect(detail._expand.informatieobjecttype._expand.catalogus.url).toBe(detail._expand.informatieobjecttype.catalogus);
  const list = await t.call('GET', `${EIO}?expand=informatieobjecttype.besluittypen.zaaktypen`);
  expect(list.statusCode).toBe(200);
  expect(list.json().results.every((r: { _expand?: { informatieobjecttype?: unknown } }) => r._expand?.informatieobjecttype)).toBe(true);
  const bad = await t.call('GET', `${eio.url}?expand=auteur`);
  expect(bad.statusCode).toBe(400);
  expect(bad.json().invalidParams[0]).toMatchObject({ name: 'expand', code: 'invalid-expand-field' });
});
