import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

// Every Catalogi list needs catalogi.lezen (403 otherwise, never an empty 200); the standard opens zaaktypen to
// zaken.lezen and documenten.lezen too (their security is `catalogi.lezen | documenten.lezen | zaken.lezen`).
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
const LISTS = [
  'catalogussen',
  'zaaktypen',
  'statustypen',
  'roltypen',
  'resultaattypen',
  'eigenschappen',
  'informatieobjecttypen',
  'besluittypen',
  'zaaktype-informatieobjecttypen',
  'zaakobjecttypen',
];

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
});
afterAll(async () => {
  await t?.close();
  await sl?.close();
});

async function clientWith(clientId: string, autorisaties: Record<string, unknown>[]): Promise<string> {
  await t.client(clientId, `${clientId}-geheim`);
  const res = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [clientId],
    label: clientId,
    heeftAlleAutorisaties: false,
    autorisaties,
  });
  expect(res.statusCode).toBe(201);
  return token(clientId, `${clientId}-geheim`);
}

it('refuses every Catalogi list to a client without catalogi.lezen with 403', async () => {
  const tok = await clientWith('alleen-notificaties', [{ component: 'nrc', scopes: ['notificaties.consumeren'] }]);
  for (const list of LISTS) {
    const res = await t.call('GET', `/catalogi/api/v1/${list}`, undefined, { token: tok });
    expect([list, res.statusCode, res.json().code]).toEqual([list, 403, 'permission_denied']);
  }
});

it('lets a zaken client read zaaktypen, as the standard says, and nothing else of Catalogi', async () => {
  const tok = await clientWith('alleen-zaken', [
    { component: 'zrc', scopes: ['zaken.lezen'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'openbaar' },
  ]);
  for (const list of LISTS) {
    const res = await t.call('GET', `/catalogi/api/v1/${list}`, undefined, { token: tok });
    expect([list, res.statusCode]).toEqual([list, list === 'zaaktypen' ? 200 : 403]);
  }
  const all = await t.call('GET', '/catalogi/api/v1/zaaktypen', undefined, { token: tok });
  expect(all.json().results.map((z: { url: string }) => z.url)).toContain(s.zaaktype);
});
