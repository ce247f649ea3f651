import { createEio, eioBody } from './documenten.fixtures';
import { startApp, type TestApp } from './harness';
import { Problems } from './problems';
import { BESLUITEN, BIO, MISSING, besluitBody, besluittypeMetDocumenttype, createB } from './besluiten.fixtures';

// Bad input to every Besluiten operation: a 4xx in the ZGW format with the expected status and field, never a 5xx.
let t: TestApp;

beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

it('answers bad input to every operation with a ZGW 4xx', async () => {
  const s = await besluittypeMetDocumenttype(t);
  const b = await createB(t, BESLUITEN, besluitBody(s.besluittype));
  const eio = await createEio(t, eioBody(s.informatieobjecttype));
  const bio = await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });
  const body = (over: Record<string, unknown>) => besluitBody(s.besluittype, over);
  const p = new Problems();
  const cases: [string, string, string, unknown, number, string?, string?][] = [
    ['create: no body', 'POST', BESLUITEN, undefined, 400, 'nonFieldErrors'],
    ['create: array body', 'POST', BESLUITEN, '[1,2]', 400, 'nonFieldErrors'],
    ['create: broken JSON', 'POST', BESLUITEN, '{"datum": ', 400, 'nonFieldErrors', 'parse_error'],
    [
      'create: no verantwoordelijkeOrganisatie',
      'POST',
      BESLUITEN,
      body({ verantwoordelijkeOrganisatie: undefined }),
      400,
      'verantwoordelijkeOrganisatie',
      'required',
    ],
    ['create: no besluittype', 'POST', BESLUITEN, body({ besluittype: undefined }), 400, 'besluittype', 'required'],
    ['create: no datum', 'POST', BESLUITEN, body({ datum: undefined }), 400, 'datum', 'required'],
    ['create: no ingangsdatum', 'POST', BESLUITEN, body({ ingangsdatum: undefined }), 400, 'ingangsdatum', 'required'],
    [
      'create: verantwoordelijkeOrganisatie not an RSIN',
      'POST',
      BESLUITEN,
      body({ verantwoordelijkeOrganisatie: '12345' }),
      400,
      'verantwoordelijkeOrganisatie',
    ],
    ['create: besluittype not a URL', 'POST', BESLUITEN, body({ besluittype: 'vergunning' }), 400, 'besluittype'],
    ['create: besluittype too long', 'POST', BESLUITEN, body({ besluittype: `${s.besluittype}?${'x'.repeat(200)}` }), 400, 'besluittype'],
    ['create: zaak not a URL', 'POST', BESLUITEN, body({ zaak: 'zaak-1' }), 400, 'zaak'],
    ['create: datum not a date', 'POST', BESLUITEN, body({ datum: '1 maart 2024' }), 400, 'datum'],
    ['create: datum no day', 'POST', BESLUITEN, body({ datum: '2024-02-30' }), 400, 'datum'],
    ['create: ingangsdatum a number', 'POST', BESLUITEN, body({ ingangsdatum: 20240301 }), 400, 'ingangsdatum'],
    ['create: vervaldatum a time', 'POST', BESLUITEN, body({ vervaldatum: '2024-03-01T10:00:00Z' }), 400, 'vervaldatum'],
    ['create: vervalreden unknown', 'POST', BESLUITEN, body({ vervalreden: 'verlopen' }), 400, 'vervalreden'],
    ['create: identificatie too long', 'POST', BESLUITEN, body({ identificatie: 'x'.repeat(51) }), 400, 'identificatie'],
    ['create: bestuursorgaan too long', 'POST', BESLUITEN, body({ bestuursorgaan: 'x'.repeat(51) }), 400, 'bestuursorgaan'],
    ['create: toelichting an object', 'POST', BESLUITEN, body({ toelichting: { a: 1 } }), 400, 'toelichting'],
    [
      'create: unknown besluittype',
      'POST',
      BESLUITEN,
      body({ besluittype: s.besluittype.replace(/[0-9a-f-]{36}$/, MISSING) }),
      400,
      'besluittype',
      'bad-url',
    ],
    ['create: no token', 'POST', BESLUITEN, body({}), 401],
    ['list: bad page', 'GET', `${BESLUITEN}?page=0`, undefined, 404],
    ['list: page not a number', 'GET', `${BESLUITEN}?page=een`, undefined, 404],
    ['list: besluittype not a URL', 'GET', `${BESLUITEN}?besluittype=x`, undefined, 400, 'besluittype'],
    ['list: zaak not a URL', 'GET', `${BESLUITEN}?zaak=x`, undefined, 400, 'zaak'],
    ['list: bad expand', 'GET', `${BESLUITEN}?expand=toelichting`, undefined, 400, 'expand', 'invalid-expand-field'],
    ['list: expand too deep', 'GET', `${BESLUITEN}?expand=zaak.a.b.c.d.e`, undefined, 400, 'expand', 'invalid-expand-field'],
    ['read: bad uuid', 'GET', `${BESLUITEN}/nope`, undefined, 404],
    ['read: unknown', 'GET', `${BESLUITEN}/${MISSING}`, undefined, 404],
    ['read: bad expand', 'GET', `${b.url}?expand=zaak,,x`, undefined, 400, 'expand', 'invalid-expand-field'],
    ['update: no datum', 'PUT', b.url, { ...body({}), datum: undefined }, 400, 'datum', 'required'],
    ['update: unknown', 'PUT', `${BESLUITEN}/${MISSING}`, body({}), 404],
    ['update: broken JSON', 'PUT', b.url, '{', 400, 'nonFieldErrors', 'parse_error'],
    ['partial update: wrong type', 'PATCH', b.url, { toelichting: 12 }, 400, 'toelichting'],
    ['partial update: bad date', 'PATCH', b.url, { publicatiedatum: 'morgen' }, 400, 'publicatiedatum'],
    ['partial update: unknown', 'PATCH', `${BESLUITEN}/${MISSING}`, { toelichting: 'x' }, 404],
    ['delete: bad uuid', 'DELETE', `${BESLUITEN}/nope`, undefined, 404],
    ['delete: unknown', 'DELETE', `${BESLUITEN}/${MISSING}`, undefined, 404],
    ['audittrail: unknown besluit', 'GET', `${BESLUITEN}/${MISSING}/audittrail`, undefined, 404],
    ['audittrail: bad uuid', 'GET', `${BESLUITEN}/nope/audittrail`, undefined, 404],
    ['audittrail: unknown entry', 'GET', `${b.url}/audittrail/${MISSING}`, undefined, 404],
    ['audittrail: bad entry uuid', 'GET', `${b.url}/audittrail/nope`, undefined, 404],
    ['bio create: no body', 'POST', BIO, undefined, 400, 'nonFieldErrors'],
    ['bio create: no besluit', 'POST', BIO, { informatieobject: eio.url }, 400, 'besluit', 'required'],
    ['bio create: no informatieobject', 'POST', BIO, { besluit: b.url }, 400, 'informatieobject', 'required'],
    ['bio create: informatieobject not a URL', 'POST', BIO, { besluit: b.url, informatieobject: 'doc' }, 400, 'informatieobject'],
    ['bio create: besluit not a URL', 'POST', BIO, { besluit: 1, informatieobject: eio.url }, 400, 'besluit'],
    ['bio list: besluit not a URL', 'GET', `${BIO}?besluit=x`, undefined, 400, 'besluit'],
    ['bio list: informatieobject not a URL', 'GET', `${BIO}?informatieobject=x`, undefined, 400, 'informatieobject'],
    ['bio list: bad expand', 'GET', `${BIO}?expand=zaak`, undefined, 400, 'expand', 'invalid-expand-field'],
    ['bio read: unknown', 'GET', `${BIO}/${MISSING}`, undefined, 404],
    ['bio read: bad uuid', 'GET', `${BIO}/nope`, undefined, 404],
    ['bio update: unknown', 'PUT', `${BIO}/${MISSING}`, { besluit: b.url, informatieobject: eio.url }, 404],
    ['bio update: no informatieobject', 'PUT', bio.url, { besluit: b.url }, 400, 'informatieobject', 'required'],
    ['bio partial update: besluit not a URL', 'PATCH', bio.url, { besluit: 'b' }, 400, 'besluit'],
    ['bio delete: unknown', 'DELETE', `${BIO}/${MISSING}`, undefined, 404],
  ];
  for (const [label, method, path, data, status, name, code] of cases) {
    const opts = label.endsWith('no token') ? { token: null } : {};
    p.expect(label, await t.call(method, path, data, opts), status, name, code);
  }
  expect(p.found).toEqual([]);
  // Nothing of the refused writes was kept.
  expect((await t.call('GET', b.url)).json()).toMatchObject({ toelichting: '', publicatiedatum: null });
  expect((await t.call('GET', `${BESLUITEN}?besluittype=${encodeURIComponent(s.besluittype)}`)).json().count).toBe(1);
});
