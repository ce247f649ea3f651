import { DRC, EIO, createEio, eioBody, informatieobjecttype, lock, storedFiles } from './documenten.fixtures';
import { startApp, token, type TestApp } from './harness';
import { Problems } from './problems';

// Bad input to every Documenten operation: a 4xx in the ZGW format with the expected status and field, never a 5xx.
let t: TestApp;
let iot: string;
let eio: Record<string, any>;
let l: string;

beforeAll(async () => {
  t = await startApp();
  iot = await informatieobjecttype(t);
  eio = await createEio(t, eioBody(iot));
  l = await lock(t, eio.url);
});
afterAll(async () => {
  await t.close();
});

const MISSING = '00000000-0000-4000-8000-000000000000';

it('answers bad input to every operation with a ZGW 4xx', async () => {
  const p = new Problems();
  const gr = (
    await t.call('POST', `${DRC}/gebruiksrechten`, { informatieobject: eio.url, startdatum: '2024-01-01T00:00:00Z', omschrijvingVoorwaarden: 'x' })
  ).json();
  const cases: [string, string, string, unknown, number, string?, string?][] = [
    ['create: no body', 'POST', EIO, undefined, 400, 'nonFieldErrors'],
    ['create: array body', 'POST', EIO, '[1,2]', 400, 'nonFieldErrors'],
    ['create: broken JSON', 'POST', EIO, '{"titel": ', 400, 'nonFieldErrors', 'parse_error'],
    ['create: broken JSON inside inhoud', 'POST', EIO, '{"inhoud": "YWJj', 400, 'nonFieldErrors', 'parse_error'],
    ['create: escaped quote in inhoud', 'POST', EIO, JSON.stringify(eioBody(iot, { inhoud: 'YW"Jj' })), 400, 'inhoud', 'invalid'],
    ['create: inhoud twice', 'POST', EIO, `{"inhoud": "YWJj", "inhoud": "YWJj", "titel": "x"}`, 400, 'inhoud'],
    ['create: inhoud a number', 'POST', EIO, eioBody(iot, { inhoud: 12 }), 400, 'inhoud'],
    ['create: negative bestandsomvang', 'POST', EIO, eioBody(iot, { bestandsomvang: -1 }), 400, 'bestandsomvang'],
    ['create: missing titel', 'POST', EIO, { ...eioBody(iot), titel: undefined }, 400, 'titel', 'required'],
    ['create: bad status', 'POST', EIO, eioBody(iot, { status: 'klaar' }), 400, 'status'],
    ['create: bad vertrouwelijkheid', 'POST', EIO, eioBody(iot, { vertrouwelijkheidaanduiding: 'super' }), 400, 'vertrouwelijkheidaanduiding'],
    ['create: bronorganisatie', 'POST', EIO, eioBody(iot, { bronorganisatie: 'abc' }), 400, 'bronorganisatie'],
    ['create: ondertekening', 'POST', EIO, eioBody(iot, { ondertekening: { soort: 'inkt', datum: null } }), 400, 'ondertekening.soort'],
    ['create: trefwoorden', 'POST', EIO, eioBody(iot, { trefwoorden: 'a,b' }), 400, 'trefwoorden'],
    ['create: informatieobjecttype not a URL', 'POST', EIO, eioBody('iot'), 400, 'informatieobjecttype'],
    ['create: unknown informatieobjecttype', 'POST', EIO, eioBody(iot.replace(/[0-9a-f-]{36}$/, MISSING)), 400, 'informatieobjecttype', 'bad-url'],
    ['create: no token', 'POST', EIO, eioBody(iot), 401],
    ['list: bad page', 'GET', `${EIO}?page=0`, undefined, 404],
    ['list: bad expand', 'GET', `${EIO}?expand=titel`, undefined, 400, 'expand', 'invalid-expand-field'],
    ['read: bad uuid', 'GET', `${EIO}/nope`, undefined, 404],
    ['read: unknown', 'GET', `${EIO}/${MISSING}`, undefined, 404],
    ['read: bad versie', 'GET', `${eio.url}?versie=x`, undefined, 400, 'versie'],
    ['read: bad registratieOp', 'GET', `${eio.url}?registratieOp=gisteren`, undefined, 400, 'registratieOp'],
    ['download: bad versie', 'GET', `${eio.url}/download?versie=0`, undefined, 400, 'versie'],
    ['download: unknown', 'GET', `${EIO}/${MISSING}/download`, undefined, 404],
    ['update: wrong type', 'PATCH', eio.url, { titel: 12, lock: l }, 400, 'titel'],
    [
      'update: other informatieobjecttype',
      'PATCH',
      eio.url,
      { informatieobjecttype: iot.replace(/[0-9a-f-]{36}$/, MISSING), lock: l },
      400,
      'informatieobjecttype',
      'wijzigen-niet-toegelaten',
    ],
    ['update: bad base64', 'PATCH', eio.url, { inhoud: '%%%', lock: l }, 400, 'inhoud', 'invalid'],
    ['update: unknown', 'PUT', `${EIO}/${MISSING}`, { ...eioBody(iot), lock: l }, 404],
    ['lock: unknown', 'POST', `${EIO}/${MISSING}/lock`, undefined, 404],
    ['lock: locked', 'POST', `${eio.url}/lock`, undefined, 400, 'nonFieldErrors', 'existing-lock'],
    ['unlock: lock a number', 'POST', `${eio.url}/unlock`, { lock: 1 }, 400, 'lock'],
    ['zoek: uuid__in not uuids', 'POST', `${EIO}/_zoek`, { uuid__in: ['x'] }, 400, 'uuid__in.0'],
    ['zoek: uuid__in not a list', 'POST', `${EIO}/_zoek`, { uuid__in: 'x' }, 400, 'uuid__in'],
    [
      'gebruiksrechten: bad startdatum',
      'POST',
      `${DRC}/gebruiksrechten`,
      { informatieobject: eio.url, startdatum: 'nu', omschrijvingVoorwaarden: 'x' },
      400,
      'startdatum',
    ],
    [
      'gebruiksrechten: unknown document',
      'POST',
      `${DRC}/gebruiksrechten`,
      {
        informatieobject: `${EIO.replace('/documenten', 'http://127.0.0.1:8000/documenten')}/${MISSING}`,
        startdatum: '2024-01-01T00:00:00Z',
        omschrijvingVoorwaarden: 'x',
      },
      400,
      'informatieobject',
      'does_not_exist',
    ],
    ['gebruiksrechten: bad filter', 'GET', `${DRC}/gebruiksrechten?startdatum__lt=gisteren`, undefined, 400, 'startdatum__lt'],
    ['gebruiksrechten: empty voorwaarden', 'PATCH', gr.url, { omschrijvingVoorwaarden: '' }, 400, 'omschrijvingVoorwaarden', 'blank'],
    [
      'objectinformatieobjecten: bad objectType',
      'POST',
      `${DRC}/objectinformatieobjecten`,
      { informatieobject: eio.url, object: 'https://example.org/x', objectType: 'brief' },
      400,
      'objectType',
    ],
    ['objectinformatieobjecten: bad object filter', 'GET', `${DRC}/objectinformatieobjecten?object=x`, undefined, 400, 'object'],
    ['verzendingen: bad aardRelatie filter', 'GET', `${DRC}/verzendingen?aardRelatie=x`, undefined, 400, 'aardRelatie'],
    [
      'verzendingen: adres',
      'POST',
      `${DRC}/verzendingen`,
      {
        informatieobject: eio.url,
        betrokkene: 'https://example.org/b',
        aardRelatie: 'afzender',
        contactPersoon: 'https://example.org/c',
        binnenlandsCorrespondentieadres: { huisnummer: 0 },
      },
      400,
      'binnenlandsCorrespondentieadres.huisnummer',
    ],
    ['bestandsdelen: JSON body', 'PUT', `${DRC}/bestandsdelen/${MISSING}`, { lock: l }, 404],
    ['bestandsdelen: broken JSON', 'PUT', `${DRC}/bestandsdelen/${MISSING}`, 'x', 400, 'nonFieldErrors', 'parse_error'],
    ['audittrail: unknown document', 'GET', `${EIO}/${MISSING}/audittrail`, undefined, 404],
  ];
  for (const [label, method, path, body, status, name, code] of cases) {
    const opts = label.endsWith('no token') ? { token: null } : {};
    p.expect(label, await t.call(method, path, body, opts), status, name, code);
  }
  // Versions: an unsupported Api-Version is refused before the body is read (no content stored); 1.7 fields checked.
  const versioned: [string, string, string, unknown, Record<string, string>, number, string?, string?][] = [
    ['version: 1.6 on create with inhoud', 'POST', EIO, eioBody(iot), { 'api-version': '1.6' }, 406],
    ['version: 2 on a list', 'GET', EIO, undefined, { 'api-version': '2' }, 406],
    ['version: text on download', 'GET', `${eio.url}/download`, undefined, { 'api-version': 'nieuwste' }, 406],
    ['version: 1.7.9 on a lock', 'POST', `${eio.url}/lock`, undefined, { 'api-version': '1.7.9' }, 406],
    [
      '1.7: isGereedVoorPublicatie',
      'POST',
      EIO,
      eioBody(iot, { isGereedVoorPublicatie: 'ja' }),
      { 'api-version': '1.7' },
      400,
      'isGereedVoorPublicatie',
      'invalid',
    ],
    [
      '1.7: tonenAanInitiator',
      'PATCH',
      eio.url,
      { tonenAanInitiator: 'nee', lock: l },
      { 'api-version': '1.7' },
      400,
      'tonenAanInitiator',
      'invalid',
    ],
    ['1.7: trefwoorden null', 'POST', EIO, eioBody(iot, { trefwoorden: null }), { 'api-version': '1.7' }, 400, 'trefwoorden', 'null'],
    [
      '1.7: objectType filter',
      'GET',
      `${EIO}?objectinformatieobjecten_objectType=x`,
      undefined,
      { 'api-version': '1.7' },
      400,
      'objectinformatieobjecten_objectType',
    ],
    ['1.7: fields not a list', 'POST', `${EIO}/_zoek`, { uuid__in: [], fields: 'url' }, { 'api-version': '1.7' }, 400, 'fields'],
    [
      '1.7: fields of no expansion',
      'POST',
      `${EIO}/_zoek`,
      { uuid__in: [], fields: [{ informatieobjecttype: ['url'] }] },
      { 'api-version': '1.7' },
      400,
      'fields',
      'invalid-fields',
    ],
  ];
  for (const [label, method, path, body, headers, status, name, code] of versioned)
    p.expect(label, await t.call(method, path, body, { headers }), status, name, code);
  const multipart = await t.app.inject({
    method: 'PUT',
    url: `${DRC}/bestandsdelen/${MISSING}`,
    payload: 'not multipart at all',
    headers: { 'content-type': 'multipart/form-data; boundary=x', authorization: `Bearer ${token()}` },
  });
  p.expect('bestandsdelen: broken multipart', multipart, 404);
  expect(p.found).toEqual([]);
  // Nothing was left in the content store by the refused writes (the one document has its one file).
  expect(await storedFiles(t)).toBe(1);
});
