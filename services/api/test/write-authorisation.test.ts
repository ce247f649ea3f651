import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { BESLUITEN, besluitBody, besluittypeMetDocumenttype, brcClient } from './besluiten.fixtures';
import { EIO, drcClient, eioBody, informatieobjecttype } from './documenten.fixtures';
import { CRS, ZRC, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

// One order on every write: the scope for the kind of write (403), then whether the type the body names is one the
// client holds that scope for, compared as sent before it is resolved (403), then validation (400), then the checks
// that need the validated body, such as vertrouwelijkheid (403).
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
const ELSEWHERE = 'https://catalogi.elders.example/api/v1';

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
});
afterAll(async () => {
  await t?.close();
  await sl?.close();
});

const problem = (res: { statusCode: number; json: () => any }) => [
  res.statusCode,
  res.json().code,
  (res.json().invalidParams ?? []).map((p: any) => `${p.name}:${p.code}`),
];

it('Zaken: a zaaktype the client has no right for is 403 before its URL is resolved or the body validated', async () => {
  await t.client('zaken-a', 'zaken-a-geheim');
  const app = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: ['zaken-a'],
    label: 'zaken-a',
    autorisaties: [{ component: 'zrc', scopes: ['zaken.aanmaken', 'zaken.lezen'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'openbaar' }],
  });
  expect(app.statusCode).toBe(201);
  const tok = token('zaken-a', 'zaken-a-geheim');
  const post = (body: unknown) => t.call('POST', `${ZRC}/zaken`, body, { token: tok, headers: CRS });
  // another host's zaaktype that does not resolve, and geheim: not this client's zaaktype
  expect(problem(await post(zaakBody(`${ELSEWHERE}/zaaktypen/1`, { vertrouwelijkheidaanduiding: 'geheim' })))).toEqual([
    403,
    'permission_denied',
    [],
  ]);
  // the same with a body that is invalid too: still 403
  expect(problem(await post(zaakBody(`${ELSEWHERE}/zaaktypen/1`, { startdatum: 'gisteren' })))).toEqual([403, 'permission_denied', []]);
  // its own zaaktype: validation first (400), then vertrouwelijkheid (403)
  expect(problem(await post(zaakBody(s.zaaktype, { startdatum: 'gisteren', vertrouwelijkheidaanduiding: 'geheim' })))).toEqual([
    400,
    'invalid',
    ['startdatum:invalid'],
  ]);
  expect(problem(await post(zaakBody(s.zaaktype, { vertrouwelijkheidaanduiding: 'geheim' })))).toEqual([403, 'permission_denied', []]);
  expect((await post(zaakBody(s.zaaktype, { vertrouwelijkheidaanduiding: 'openbaar' }))).statusCode).toBe(201);
  // a scope it holds for nothing of this kind (zaken.bijwerken): 403 whatever the body
  const patch = await t.call('PATCH', `${ZRC}/zaken/00000000-0000-4000-8000-000000000000`, { startdatum: 'gisteren' }, { token: tok, headers: CRS });
  expect(problem(patch)).toEqual([403, 'permission_denied', []]);
  // a client with every right gets the validation of the same body
  expect(problem(await t.call('POST', `${ZRC}/zaken`, zaakBody(`${ELSEWHERE}/zaaktypen/1`), { headers: CRS }))).toEqual([
    400,
    'invalid',
    ['zaaktype:bad-url'],
  ]);
});

it('Documenten and Besluiten: the informatieobjecttype and besluittype likewise', async () => {
  const iot = await informatieobjecttype(t);
  await drcClient(t, 'documenten-a', [{ scopes: ['documenten.aanmaken'], informatieobjecttype: iot, maxVertrouwelijkheidaanduiding: 'openbaar' }]);
  const drc = token('documenten-a', 'documenten-a-secret');
  const eio = (body: unknown) => t.call('POST', EIO, body, { token: drc });
  expect(problem(await eio(eioBody(`${ELSEWHERE}/informatieobjecttypen/1`, { vertrouwelijkheidaanduiding: 'geheim', taal: 'nederlands' })))).toEqual([
    403,
    'permission_denied',
    [],
  ]);
  expect(problem(await eio(eioBody(iot, { taal: 'nederlands' })))).toEqual([400, 'invalid', ['taal:max_length']]);
  expect(problem(await eio(eioBody(iot, { vertrouwelijkheidaanduiding: 'geheim' })))).toEqual([403, 'permission_denied', []]);

  const b = await besluittypeMetDocumenttype(t);
  const brc = await brcClient(t, 'besluiten-a', [{ scopes: ['besluiten.aanmaken'], besluittype: b.besluittype }]);
  const besluit = (body: unknown) => t.call('POST', BESLUITEN, body, { token: brc });
  expect(problem(await besluit(besluitBody(`${ELSEWHERE}/besluittypen/1`, { datum: 'morgen' })))).toEqual([403, 'permission_denied', []]);
  expect(problem(await besluit(besluitBody(b.besluittype, { datum: 'morgen' })))).toEqual([400, 'invalid', ['datum:invalid']]);
});
