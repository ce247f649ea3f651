import { startApp, type TestApp } from './harness';
import { Problems } from './problems';
import { ZTC, besluittypeBody, catalogus, create, iotBody, startReferentielijsten, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';

/**
 * Bad input to every Catalogi operation gets a 4xx in the ZGW error format, never a 5xx:
 * wrong types, unknown enum values, missing fields, invalid UUIDs, foreign and unresolvable URLs.
 */
let t: TestApp;
let sl: Referentielijsten;
const bodies: Record<string, Record<string, unknown>> = {};
const objects: Record<string, string> = {};
const problems = new Problems();
let otherCatalogus: string;

const MISSING = '00000000-0000-4000-8000-000000000000';
const BAD_VALUES: unknown[] = [
  null,
  12345,
  true,
  '',
  'x'.repeat(1100),
  [{}],
  { a: 1 },
  'not a url',
  'http://elders.example/api/v1/zaaktypen/1',
  `http://127.0.0.1:8000/catalogi/api/v1/zaaktypen/${MISSING}`,
  '2020-13-45',
];

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  const cat = await catalogus(t, 'BAD');
  otherCatalogus = await catalogus(t, 'BAD2');
  const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { selectielijstProcestype: sl.procestype }));
  const iot = await create(t, 'informatieobjecttypen', iotBody(cat));
  const st = await create(t, 'statustypen', { zaaktype: zt.url, omschrijving: 's', volgnummer: 1 });
  bodies.catalogussen = { domein: 'BAD', rsin: '000000000', contactpersoonBeheerNaam: 'B' };
  bodies.zaaktypen = zaaktypeBody(cat, {
    selectielijstProcestype: sl.procestype,
    gerelateerdeZaaktypen: [{ zaaktype: 'X', aardRelatie: 'vervolg' }],
  });
  bodies.besluittypen = besluittypeBody(cat, { informatieobjecttypen: [iot.url] });
  bodies.informatieobjecttypen = iotBody(cat, {
    omschrijvingGeneriek: {
      informatieobjecttypeOmschrijvingGeneriek: 'a',
      definitieInformatieobjecttypeOmschrijvingGeneriek: 'b',
      herkomstInformatieobjecttypeOmschrijvingGeneriek: 'c',
      hierarchieInformatieobjecttypeOmschrijvingGeneriek: 'd',
    },
  });
  bodies.statustypen = { zaaktype: zt.url, omschrijving: 'o', volgnummer: 2, checklistitemStatustype: [{ itemnaam: 'i', vraagstelling: 'v' }] };
  bodies.roltypen = { zaaktype: zt.url, omschrijving: 'r', omschrijvingGeneriek: 'adviseur' };
  bodies.eigenschappen = {
    zaaktype: zt.url,
    naam: 'e',
    definitie: 'd',
    specificatie: { formaat: 'tekst', lengte: '5', kardinaliteit: '1' },
    statustype: st.url,
  };
  bodies.resultaattypen = {
    zaaktype: zt.url,
    omschrijving: 'r',
    resultaattypeomschrijving: sl.omschrijving,
    selectielijstklasse: sl.resultaat.vast,
    brondatumArchiefprocedure: { afleidingswijze: 'afgehandeld' },
    besluittypen: [],
  };
  bodies.zaakobjecttypen = {
    zaaktype: zt.url,
    catalogus: cat,
    anderObjecttype: false,
    beginGeldigheid: '2020-01-01',
    objecttype: 'https://o.example/1',
    relatieOmschrijving: 'r',
  };
  bodies['zaaktype-informatieobjecttypen'] = { zaaktype: zt.url, informatieobjecttype: iot.url, volgnummer: 1, richting: 'inkomend' };
  for (const [collection, body] of Object.entries(bodies)) objects[collection] = (await create(t, collection, body)).url;
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const COLLECTIONS = [
  'catalogussen',
  'zaaktypen',
  'besluittypen',
  'informatieobjecttypen',
  'statustypen',
  'roltypen',
  'eigenschappen',
  'resultaattypen',
  'zaakobjecttypen',
  'zaaktype-informatieobjecttypen',
];
const WRITABLE = COLLECTIONS.filter((c) => c !== 'catalogussen');
const PUBLISHABLE = ['zaaktypen', 'besluittypen', 'informatieobjecttypen'];
const FILTERS: Record<string, string[]> = {
  catalogussen: ['domein', 'domein__in', 'rsin', 'rsin__in'],
  zaaktypen: ['catalogus', 'identificatie', 'trefwoorden', 'status', 'datumGeldigheid'],
  besluittypen: ['catalogus', 'zaaktypen', 'informatieobjecttypen', 'status', 'omschrijving', 'datumGeldigheid'],
  informatieobjecttypen: ['catalogus', 'status', 'datumGeldigheid', 'omschrijving'],
  statustypen: ['zaaktype', 'zaaktypeIdentificatie', 'status', 'datumGeldigheid'],
  roltypen: ['zaaktype', 'zaaktypeIdentificatie', 'omschrijvingGeneriek', 'status', 'datumGeldigheid'],
  eigenschappen: ['zaaktype', 'zaaktypeIdentificatie', 'status', 'datumGeldigheid'],
  resultaattypen: ['zaaktype', 'zaaktype_identificatie', 'status', 'datum_geldigheid'],
  zaakobjecttypen: [
    'anderObjecttype',
    'catalogus',
    'datumBeginGeldigheid',
    'datumEindeGeldigheid',
    'datumGeldigheid',
    'objecttype',
    'relatieOmschrijving',
    'zaaktype',
    'zaaktypeIdentificatie',
  ],
  'zaaktype-informatieobjecttypen': ['zaaktype', 'informatieobjecttype', 'richting', 'status'],
};

describe('bad input never gives a 5xx', () => {
  it('list operations with bad filter values and pages', async () => {
    for (const collection of COLLECTIONS) {
      for (const filter of FILTERS[collection]!) {
        for (const value of ['x', 'not-a-date', '2020-02-30', '%E2%82', 'http://elders.example/1', '', 'alles,concept']) {
          problems.check(`GET ${collection}?${filter}=${value}`, await t.call('GET', `${ZTC}/${collection}?${filter}=${value}`));
        }
      }
      for (const page of ['0', '-1', 'abc', '999'])
        problems.check(`GET ${collection}?page=${page}`, await t.call('GET', `${ZTC}/${collection}?page=${page}`));
      // Unknown enum values in filters are a 400 naming the parameter.
      if (FILTERS[collection]!.includes('status')) {
        const res = await t.call('GET', `${ZTC}/${collection}?status=onbekend`);
        expect(res.statusCode).toBe(400);
        expect(res.json().invalidParams[0].name).toBe('status');
      }
    }
    expect(problems.found).toEqual([]);
  });

  it('detail operations (GET, HEAD, PUT, PATCH, DELETE, publish) with invalid and unknown uuids', async () => {
    for (const collection of COLLECTIONS) {
      for (const id of ['not-a-uuid', MISSING, '1']) {
        for (const method of ['GET', 'HEAD', ...(collection === 'catalogussen' ? [] : ['PUT', 'PATCH', 'DELETE'])]) {
          const res = await t.call(method, `${ZTC}/${collection}/${id}`, ['PUT', 'PATCH'].includes(method) ? bodies[collection] : undefined);
          problems.check(`${method} ${collection}/${id}`, res);
          expect(res.statusCode).toBe(404);
        }
        if (PUBLISHABLE.includes(collection)) {
          const res = await t.call('POST', `${ZTC}/${collection}/${id}/publish`);
          problems.check(`publish ${collection}/${id}`, res);
          expect(res.statusCode).toBe(404);
        }
      }
    }
    expect(problems.found).toEqual([]);
  });

  it('create, update and partial update with bodies that are not objects or miss required fields', async () => {
    for (const collection of COLLECTIONS) {
      const targets: [string, string][] = [['POST', `${ZTC}/${collection}`]];
      if (collection !== 'catalogussen') targets.push(['PUT', objects[collection]!], ['PATCH', objects[collection]!]);
      for (const [method, url] of targets) {
        for (const body of [[], 'tekst', 42, null, '{"kapot": ', '']) {
          const res = await t.call(method, url, typeof body === 'string' ? body : JSON.stringify(body), {
            headers: { 'content-type': 'application/json' },
          });
          problems.check(`${method} ${collection} ${JSON.stringify(body)}`, res);
          expect(res.statusCode).toBeGreaterThanOrEqual(400);
          expect(res.statusCode).toBeLessThan(500);
        }
      }
      if (collection === 'catalogussen') continue;
      // A POST or PUT without a required field names that field.
      const empty = await t.call('POST', `${ZTC}/${collection}`, {});
      expect(empty.statusCode).toBe(400);
      expect(empty.json().invalidParams.map((p: { code: string }) => p.code)).toContain('required');
    }
    expect(problems.found).toEqual([]);
  });

  it('every field of every writable resource with wrong types, unknown values and bad URLs', async () => {
    for (const collection of COLLECTIONS) {
      const valid = bodies[collection]!;
      for (const field of Object.keys(valid)) {
        for (const value of BAD_VALUES) {
          const body = { ...valid, [field]: value };
          problems.check(`POST ${collection} ${field}=${JSON.stringify(value)?.slice(0, 40)}`, await t.call('POST', `${ZTC}/${collection}`, body));
          if (WRITABLE.includes(collection)) {
            problems.check(`PUT ${collection} ${field}`, await t.call('PUT', objects[collection]!, body));
            problems.check(`PATCH ${collection} ${field}`, await t.call('PATCH', objects[collection]!, { [field]: value }));
          }
        }
        const { [field]: _dropped, ...without } = valid;
        problems.check(`POST ${collection} without ${field}`, await t.call('POST', `${ZTC}/${collection}`, without));
      }
    }
    expect(problems.found).toEqual([]);
  });

  it('names the field in typical mistakes', async () => {
    const zt = bodies.zaaktypen!;
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['zaaktypen', { ...zt, vertrouwelijkheidaanduiding: 'supergeheim' }, 'vertrouwelijkheidaanduiding', 'invalid_choice'],
      ['zaaktypen', { ...zt, doorlooptijd: '10 dagen' }, 'doorlooptijd', 'invalid'],
      ['zaaktypen', { ...zt, catalogus: 'http://elders.example/catalogussen/1' }, 'catalogus', 'bad-url'],
      ['zaaktypen', { ...zt, catalogus: `http://127.0.0.1:8000/catalogi/api/v1/catalogussen/${MISSING}` }, 'catalogus', 'does_not_exist'],
      ['zaaktypen', { ...zt, besluittypen: ['http://elders.example/besluittypen/1'] }, 'besluittypen.0', 'bad-url'],
      ['zaaktypen', { ...zt, selectielijstProcestype: `${sl.url}/procestypen/${MISSING}` }, 'selectielijstProcestype', 'bad-url'],
      ['zaaktypen', { ...zt, opschortingEnAanhoudingMogelijk: 'ja' }, 'opschortingEnAanhoudingMogelijk', 'invalid'],
      ['zaaktypen', { ...zt, verlengingMogelijk: true }, 'verlengingstermijn', 'required'],
      ['roltypen', { ...bodies.roltypen, omschrijvingGeneriek: 'baas' }, 'omschrijvingGeneriek', 'invalid_choice'],
      ['statustypen', { ...bodies.statustypen, volgnummer: 0 }, 'volgnummer', 'min_value'],
      ['statustypen', { ...bodies.statustypen, zaaktype: 'geen url' }, 'zaaktype', 'invalid'],
      [
        'eigenschappen',
        { ...bodies.eigenschappen, specificatie: { formaat: 'kleur', lengte: '1', kardinaliteit: '1' } },
        'specificatie.formaat',
        'invalid_choice',
      ],
      [
        'resultaattypen',
        { ...bodies.resultaattypen, brondatumArchiefprocedure: { afleidingswijze: 'later' } },
        'brondatumArchiefprocedure.afleidingswijze',
        'invalid_choice',
      ],
      ['zaaktype-informatieobjecttypen', { ...bodies['zaaktype-informatieobjecttypen'], richting: 'omhoog' }, 'richting', 'invalid_choice'],
      ['catalogussen', { ...bodies.catalogussen, rsin: '12' }, 'rsin', 'invalid'],
      [
        'eigenschappen',
        { ...bodies.eigenschappen, statustype: `http://127.0.0.1:8000/catalogi/api/v1/statustypen/${MISSING}` },
        'statustype',
        'does_not_exist',
      ],
      ['statustypen', { ...bodies.statustypen, eigenschappen: ['http://elders.example/eigenschappen/1'] }, 'eigenschappen.0', 'bad-url'],
      [
        'zaakobjecttypen',
        { ...bodies.zaakobjecttypen, statustypen: [`http://127.0.0.1:8000/catalogi/api/v1/statustypen/${MISSING}`] },
        'statustypen.0',
        'does_not_exist',
      ],
      ['resultaattypen', { ...bodies.resultaattypen, informatieobjecttypen: ['http://elders.example/iot/1'] }, 'informatieobjecttypen.0', 'bad-url'],
      [
        'zaaktype-informatieobjecttypen',
        { ...bodies['zaaktype-informatieobjecttypen'], statustype: `http://127.0.0.1:8000/catalogi/api/v1/statustypen/${MISSING}` },
        'statustype',
        'does_not_exist',
      ],
      ['zaakobjecttypen', { ...bodies.zaakobjecttypen, catalogus: otherCatalogus }, 'nonFieldErrors', 'relations-incorrect-catalogus'],
    ];
    for (const [collection, body, name, code] of cases) {
      const res = await t.call('POST', `${ZTC}/${collection}`, body);
      expect({ collection, status: res.statusCode, params: res.json().invalidParams }).toEqual({
        collection,
        status: 400,
        params: expect.arrayContaining([expect.objectContaining({ name, code })]),
      });
    }
  });
});
