import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { MongoServerError } from 'mongodb';
import { inTenant } from '@zgw/shared';
import { ZTC, create, iotBody, publish, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { BASE, startApp, token, type TestApp } from './harness';
import { Problems } from './problems';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

/**
 * Every Zaken 1.5.1 operation, with valid input (its success status and effect, last) and with bad input. Bad input to
 * every operation gets a 4xx in the ZGW error format, never a 5xx: bodies that are no
 * JSON object, wrong types and unknown values per field, unknown and foreign URLs, invalid and unknown uuids, bad
 * filters and pages, bad `_zoek` bodies, wrong or missing CRS headers, bad identificaties per type, missing auth.
 */
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
const problems = new Problems();
/** Valid bodies per writable resource, the stored objects per resource and their uuids. */
const bodies: Record<string, Record<string, unknown>> = {};
const objects: Record<string, { url: string; uuid: string; zaakUuid: string }> = {};
let zaak: Record<string, any>;
let otherZaak: Record<string, any>;

const MISSING = '00000000-0000-4000-8000-000000000000';
/** A ring whose edges cross: valid GeoJSON that a 2dsphere index refuses. */
const BOWTIE = {
  type: 'Polygon',
  coordinates: [
    [
      [0, 0],
      [2, 2],
      [2, 0],
      [0, 2],
      [0, 0],
    ],
  ],
};
/** Arrays nested deeper than anything can serialise recursively (JSON.stringify, BSON, String()). */
const DEEP_JSON = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const DEEP: unknown = JSON.parse(DEEP_JSON);
/** A request body as JSON text; DEEP (which JSON.stringify cannot write) goes in as text. */
const json = (body: unknown) => JSON.stringify(body, (_k, v) => (v === DEEP ? '\u0000DEEP' : v)).replaceAll('"\\u0000DEEP"', DEEP_JSON);
const missingUrl = (collection: string) => `${BASE}${ZRC}/${collection}/${MISSING}`;

type Kind = 'list' | 'create' | 'zoek' | 'read' | 'head' | 'update' | 'partial_update' | 'delete';
interface Op {
  resource: string;
  kind: Kind;
  method: string;
  /** With `{uuid}` and `{zaak_uuid}` as the standard writes them. */
  path: string;
}
const METHODS: Record<Kind, string> = {
  list: 'GET',
  create: 'POST',
  zoek: 'POST',
  read: 'GET',
  head: 'HEAD',
  update: 'PUT',
  partial_update: 'PATCH',
  delete: 'DELETE',
};
const ALL: Kind[] = ['list', 'create', 'read', 'head', 'update', 'partial_update', 'delete'];
const operations = (resource: string, collectionPath: string, kinds: Kind[]): Op[] =>
  kinds.map((kind) => ({
    resource,
    kind,
    method: METHODS[kind],
    path: kind === 'list' || kind === 'create' ? collectionPath : kind === 'zoek' ? `${collectionPath}/_zoek` : `${collectionPath}/{uuid}`,
  }));

/** The 62 operations of zaken-1.5.1.yaml (25 paths, HEAD included). */
const OPS: Op[] = [
  ...operations('zaken', '/zaken', [...ALL, 'zoek']),
  ...operations('statussen', '/statussen', ['list', 'create', 'read', 'head']),
  ...operations('resultaten', '/resultaten', ALL),
  ...operations('rollen', '/rollen', ['list', 'create', 'read', 'head', 'delete']),
  ...operations('zaakobjecten', '/zaakobjecten', ALL),
  ...operations('zaakinformatieobjecten', '/zaakinformatieobjecten', ALL),
  ...operations('klantcontacten', '/klantcontacten', ['list', 'create', 'read']),
  ...operations('zaakcontactmomenten', '/zaakcontactmomenten', ['list', 'create', 'read', 'delete']),
  ...operations('zaakverzoeken', '/zaakverzoeken', ['list', 'create', 'read', 'delete']),
  ...operations('zaakeigenschappen', '/zaken/{zaak_uuid}/zaakeigenschappen', ALL),
  ...operations('besluiten', '/zaken/{zaak_uuid}/besluiten', ['list', 'create', 'read', 'delete']),
  ...operations('audittrail', '/zaken/{zaak_uuid}/audittrail', ['list', 'read']),
];
const WITH_BODY: Kind[] = ['create', 'update', 'partial_update', 'zoek'];

/** The request path of an operation for these ids (default: the stored object of its resource). */
function pathOf(op: Op, ids: { uuid?: string; zaakUuid?: string } = {}): string {
  const obj = objects[op.resource];
  return `${ZRC}${op.path.replace('{zaak_uuid}', ids.zaakUuid ?? obj?.zaakUuid ?? zaak.uuid).replace('{uuid}', ids.uuid ?? obj?.uuid ?? MISSING)}`;
}

/** A valid body for an operation: PATCH and PUT send the resource's whole valid body. */
const bodyOf = (op: Op) => (op.kind === 'zoek' ? {} : WITH_BODY.includes(op.kind) ? bodies[op.resource] : undefined);

const call = (method: string, url: string, body?: unknown, opts: { token?: string | null; headers?: Record<string, string> } = {}) =>
  t.call(method, url, body === undefined || typeof body === 'string' ? body : json(body), { ...opts, headers: { ...CRS, ...(opts.headers ?? {}) } });

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
  // An informatieobjecttype of the zaaktype, and the objects of other registrations that parts link to.
  const cat = (await t.call('GET', s.zaaktype)).json().catalogus as string;
  const iot = await create(t, 'informatieobjecttypen', iotBody(cat));
  await create(t, 'zaaktype-informatieobjecttypen', { zaaktype: s.zaaktype, informatieobjecttype: iot.url, volgnummer: 1, richting: 'inkomend' });
  await publish(t, iot.url);
  const informatieobject = sl.add(`documenten/${randomUUID()}`, { informatieobjecttype: iot.url, titel: 'brief', bronorganisatie: '000000000' });
  const contactmoment = sl.add(`contactmomenten/${randomUUID()}`, { kanaal: 'telefoon' });
  const verzoek = sl.add(`verzoeken/${randomUUID()}`, { status: 'ontvangen' });
  const besluit = sl.add(`besluiten/${randomUUID()}`, { besluittype: 'https://elders.example/besluittypen/1' });
  const kanaal = sl.add(`communicatiekanalen/${randomUUID()}`, { naam: 'telefoon' });

  bodies.zaken = zaakBody(s.zaaktype, {
    omschrijving: 'Melding',
    toelichting: 'toelichting',
    registratiedatum: '2024-03-01',
    einddatumGepland: '2024-04-01',
    uiterlijkeEinddatumAfdoening: '2024-05-01',
    publicatiedatum: '2024-03-02',
    communicatiekanaal: kanaal,
    productenOfDiensten: [],
    vertrouwelijkheidaanduiding: 'openbaar',
    betalingsindicatie: 'geheel',
    laatsteBetaaldatum: '2024-03-01T10:00:00Z',
    zaakgeometrie: { type: 'Point', coordinates: [5.1, 52.1] },
    verlenging: { reden: 'drukte', duur: 'P10D' },
    opschorting: { indicatie: false, reden: '' },
    selectielijstklasse: '',
    hoofdzaak: null,
    relevanteAndereZaken: [],
    kenmerken: [{ kenmerk: 'k', bron: 'b' }],
    archiefnominatie: 'vernietigen',
    archiefstatus: 'nog_te_archiveren',
    archiefactiedatum: '2034-03-01',
    opdrachtgevendeOrganisatie: '000000000',
    processobjectaard: 'zaak',
    startdatumBewaartermijn: '2024-03-01',
    processobject: { datumkenmerk: 'd', identificatie: 'i', objecttype: 'o', registratie: 'r' },
  });
  zaak = await createZ(t, 'zaken', bodies.zaken);
  otherZaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
  const uuidOf = (url: string) => url.split('/').pop()!;
  const keep = (resource: string, obj: { url?: unknown }) => {
    const url = String(obj.url);
    objects[resource] = { url, uuid: uuidOf(url), zaakUuid: zaak.uuid };
  };
  keep('zaken', zaak);

  bodies.statussen = {
    zaak: zaak.url,
    statustype: s.statustypen.begin,
    datumStatusGezet: '2024-03-02T10:00:00Z',
    statustoelichting: 't',
    gezetdoor: '',
  };
  bodies.resultaten = { zaak: zaak.url, resultaattype: s.resultaattype, toelichting: 't' };
  bodies.rollen = {
    zaak: zaak.url,
    betrokkene: '',
    betrokkeneType: 'medewerker',
    afwijkendeNaamBetrokkene: 'a',
    roltype: s.roltype,
    roltoelichting: 't',
    indicatieMachtiging: '',
    contactpersoonRol: { naam: 'n', emailadres: 'a@b.nl', functie: 'f', telefoonnummer: '06' },
    betrokkeneIdentificatie: { identificatie: 'm1', achternaam: 'Jansen', voorletters: 'J', voorvoegselAchternaam: '' },
  };
  bodies.zaakobjecten = {
    zaak: zaak.url,
    object: '',
    zaakobjecttype: '',
    objectType: 'pand',
    objectTypeOverige: '',
    objectTypeOverigeDefinitie: null,
    relatieomschrijving: 'r',
    objectIdentificatie: { identificatie: 'P1' },
  };
  bodies.zaakinformatieobjecten = { informatieobject, zaak: zaak.url, titel: 't', beschrijving: 'b', vernietigingsdatum: null, status: null };
  bodies.klantcontacten = { zaak: zaak.url, identificatie: 'KC1', datumtijd: '2024-03-03T10:00:00Z', kanaal: 'k', onderwerp: 'o', toelichting: 't' };
  bodies.zaakcontactmomenten = { zaak: zaak.url, contactmoment };
  bodies.zaakverzoeken = { zaak: zaak.url, verzoek };
  bodies.zaakeigenschappen = { zaak: zaak.url, eigenschap: s.eigenschap, waarde: 'rood' };
  bodies.besluiten = { besluit };
  for (const resource of [
    'statussen',
    'resultaten',
    'rollen',
    'zaakobjecten',
    'zaakinformatieobjecten',
    'klantcontacten',
    'zaakcontactmomenten',
    'zaakverzoeken',
  ]) {
    keep(resource, await createZ(t, resource, bodies[resource]));
  }
  for (const nested of ['zaakeigenschappen', 'besluiten']) keep(nested, await createZ(t, `${zaak.url}/${nested}`, bodies[nested]));
  // The audit service writes the audit trail; one entry stands in for it.
  const entry = randomUUID();
  await inTenant(t.config.ZGW_DEFAULT_TENANT, () =>
    t.mongo.db.collection('audittrail').insertOne({ _id: entry, hoofdObject: zaak.url, aanmaakdatum: new Date().toISOString() } as never),
  );
  objects.audittrail = { url: `${zaak.url}/audittrail/${entry}`, uuid: entry, zaakUuid: zaak.uuid };
});
afterAll(async () => {
  await t.close();
  await sl.close();
});
afterEach(() => {
  const found = problems.found.splice(0);
  expect(found).toEqual([]);
});

describe('the operations table', () => {
  it('is every operation the Zaken API serves (62 with HEAD)', async () => {
    expect(OPS).toHaveLength(62);
    const doc = (await t.call('GET', `${ZRC}/schema/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
    const served = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(OPS.map((op) => `${op.method} ${op.path}`).sort()).toEqual(served.sort());
  });
});

describe('authentication and scopes', () => {
  it('every operation without a token is 401, with a garbled one 401, with a client without Zaken rights 403', async () => {
    await t.client('zrc-nobody', 'zrc-nobody-secret');
    const nobody = token('zrc-nobody', 'zrc-nobody-secret');
    for (const op of OPS) {
      const url = pathOf(op);
      problems.expect(`${op.method} ${op.path} without token`, await call(op.method, url, bodyOf(op), { token: null }), 401);
      problems.expect(`${op.method} ${op.path} garbled token`, await call(op.method, url, bodyOf(op), { token: 'kapot' }), 401);
      problems.expect(`${op.method} ${op.path} unknown client`, await call(op.method, url, bodyOf(op), { token: token('onbekend', 'x') }), 403);
      problems.expect(`${op.method} ${op.path} no rights`, await call(op.method, url, bodyOf(op), { token: nobody }), 403);
    }
    // Nothing was deleted or changed on the way.
    expect((await call('GET', zaak.url)).json().omschrijving).toBe('Melding');
  });
});

describe('paths', () => {
  it('detail operations with an invalid or unknown uuid (of the object or of its zaak) are 404', async () => {
    for (const op of OPS.filter((o) => o.path.includes('{'))) {
      const variants: { uuid?: string; zaakUuid?: string }[] = [{ zaakUuid: 'not-a-uuid' }, { zaakUuid: MISSING }, { zaakUuid: '1' }];
      if (op.path.includes('{uuid}')) variants.push({ uuid: 'not-a-uuid' }, { uuid: MISSING }, { uuid: '1' }, { uuid: `${MISSING}x` });
      for (const ids of variants) {
        if (!op.path.includes('{zaak_uuid}') && ids.zaakUuid) continue;
        problems.expect(`${op.method} ${pathOf(op, ids)}`, await call(op.method, pathOf(op, ids), bodyOf(op)), 404);
      }
    }
    // A part under another zaak's URL is not found there.
    for (const nested of ['zaakeigenschappen', 'besluiten']) {
      problems.expect(`${nested} under another zaak`, await call('GET', `${otherZaak.url}/${nested}/${objects[nested]!.uuid}`), 404);
    }
  });
});

describe('request bodies', () => {
  it('a body that is no JSON object is a 400 on nonFieldErrors; another media type a 415', async () => {
    for (const op of OPS.filter((o) => WITH_BODY.includes(o.kind))) {
      for (const raw of ['{"kapot": ', '[]', '[{}]', '"tekst"', 'null', '42', 'true', '{"a": 1,}', "{'a': 1}"]) {
        problems.expect(`${op.method} ${op.path} ${raw}`, await call(op.method, pathOf(op), raw), 400, 'nonFieldErrors');
      }
      problems.expect(`${op.method} ${op.path} without body`, await call(op.method, pathOf(op)), 400, 'nonFieldErrors');
      const xml = await t.app.inject({
        method: op.method as 'POST',
        url: pathOf(op),
        payload: '<zaak/>',
        headers: { ...CRS, authorization: `Bearer ${token()}`, 'content-type': 'application/xml' },
      });
      problems.expect(`${op.method} ${op.path} as XML`, xml, 415);
    }
  });

  it('a create without its required fields names each of them', async () => {
    const REQUIRED: Record<string, string[]> = {
      zaken: ['bronorganisatie', 'startdatum', 'verantwoordelijkeOrganisatie', 'zaaktype'],
      statussen: ['datumStatusGezet', 'statustype', 'zaak'],
      resultaten: ['resultaattype', 'zaak'],
      rollen: ['betrokkeneType', 'roltoelichting', 'roltype', 'zaak'],
      zaakobjecten: ['objectType', 'zaak'],
      zaakinformatieobjecten: ['informatieobject', 'zaak'],
      klantcontacten: ['datumtijd', 'zaak'],
      zaakcontactmomenten: ['contactmoment', 'zaak'],
      zaakverzoeken: ['verzoek', 'zaak'],
      zaakeigenschappen: ['eigenschap', 'waarde'],
      besluiten: ['besluit'],
    };
    for (const op of OPS.filter((o) => o.kind === 'create' || o.kind === 'update')) {
      const res = problems.expect(`${op.method} ${op.path} {}`, await call(op.method, pathOf(op), {}), 400);
      const required = (res.json().invalidParams ?? []).filter((p: { code: string }) => p.code === 'required').map((p: { name: string }) => p.name);
      expect({ op: `${op.method} ${op.path}`, required: required.sort() }).toEqual({
        op: `${op.method} ${op.path}`,
        required: REQUIRED[op.resource]!.sort(),
      });
    }
  });

  /** Values that no field of any Zaken resource takes. */
  const WRONG_TYPES: unknown[] = [12345, true, [1], DEEP];
  /** Values that some fields take and most refuse: never a 5xx, always the error format. */
  const ODD: unknown[] = [
    null,
    '',
    'x'.repeat(1100),
    [{}],
    { a: 1 },
    'not a url',
    'http://elders.example/api/v1/zaken/1',
    'onbekende_waarde',
    '2020-13-45',
    '2024-02-30T25:61:00Z',
    -1,
    1e308,
    { $where: 'sleep(1000)' },
    { 'a.b': { $gt: '' } },
    'nul\u0000teken',
  ];

  it('every field of every writable resource with wrong types, odd values, and missing', async () => {
    // Local URLs of an unknown object and of the wrong resource, per resource.
    ODD.push(missingUrl('zaken'), objects.rollen!.url, `${BASE}${ZTC}/zaaktypen/${MISSING}`, s.statustypen.eind, sl.html);
    for (const resource of Object.keys(bodies)) {
      const ops = OPS.filter((o) => o.resource === resource && ['create', 'update', 'partial_update'].includes(o.kind));
      for (const field of Object.keys(bodies[resource]!)) {
        for (const op of ops) {
          const body = (value: unknown) => (op.kind === 'partial_update' ? { [field]: value } : { ...bodies[resource], [field]: value });
          for (const value of WRONG_TYPES) {
            const label = value === DEEP ? 'deeply nested arrays' : JSON.stringify(value);
            problems.expect(`${op.method} ${op.path} ${field}=${label}`, await call(op.method, pathOf(op), body(value)), 400, field);
          }
          for (const value of ODD)
            problems.check(`${op.method} ${op.path} ${field}=${JSON.stringify(value).slice(0, 60)}`, await call(op.method, pathOf(op), body(value)));
        }
        const { [field]: _dropped, ...without } = bodies[resource]!;
        const create = ops.find((o) => o.kind === 'create')!;
        problems.check(`POST ${create.path} without ${field}`, await call('POST', pathOf(create), without));
      }
    }
  });

  it('names the field and the rule in typical mistakes', async () => {
    const other = await zaaktypeMetOnderdelen(t, sl, { identificatie: 'ZT-ANDER' });
    const z = bodies.zaken!;
    const part = (resource: string, over: Record<string, unknown>) => ({ ...bodies[resource], ...over });
    const ring = [
      [5, 52],
      [6, 52],
      [6, 53],
      [5, 52],
    ];
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['zaken', { ...z, bronorganisatie: '12' }, 'bronorganisatie', 'invalid'],
      ['zaken', { ...z, verantwoordelijkeOrganisatie: '12345678X' }, 'verantwoordelijkeOrganisatie', 'invalid'],
      ['zaken', { ...z, vertrouwelijkheidaanduiding: 'supergeheim' }, 'vertrouwelijkheidaanduiding', 'invalid_choice'],
      ['zaken', { ...z, betalingsindicatie: 'morgen' }, 'betalingsindicatie', 'invalid'],
      ['zaken', { ...z, archiefstatus: 'weg' }, 'archiefstatus', 'invalid_choice'],
      ['zaken', { ...z, startdatum: '2024-02-30' }, 'startdatum', 'invalid'],
      ['zaken', { ...z, laatsteBetaaldatum: 'gisteren' }, 'laatsteBetaaldatum', 'invalid'],
      ['zaken', { ...z, omschrijving: 'x'.repeat(81) }, 'omschrijving', 'max_length'],
      ['zaken', { ...z, kenmerken: [{ kenmerk: 'x'.repeat(41), bron: 'b' }] }, 'kenmerken.0.kenmerk', 'max_length'],
      ['zaken', { ...z, verlenging: { reden: 'r', duur: '10 dagen' } }, 'verlenging.duur', 'invalid'],
      ['zaken', { ...z, opschorting: { indicatie: 'ja', reden: '' } }, 'opschorting.indicatie', 'invalid'],
      ['zaken', { ...z, zaaktype: 'geen url' }, 'zaaktype', 'invalid'],
      ['zaken', { ...z, zaaktype: `${BASE}${ZTC}/zaaktypen/${MISSING}` }, 'zaaktype', 'bad-url'],
      ['zaken', { ...z, zaaktype: s.statustypen.begin }, 'zaaktype', 'invalid-resource'],
      // this platform's own Catalogi URLs that are no object at all (404) are bad-url, as any URL that does not resolve
      ['zaken', { ...z, zaaktype: `${BASE}${ZTC}/zaaktypen/xyz` }, 'zaaktype', 'bad-url'],
      ['zaken', { ...z, zaaktype: `${BASE}${ZTC}/zaaktypes/${MISSING}` }, 'zaaktype', 'bad-url'],
      ['zaken', { ...z, zaaktype: `${BASE}${ZTC}/statustypen/${MISSING}` }, 'zaaktype', 'bad-url'],
      ['zaken', { ...z, zaaktype: `${sl.url}/zaaktypen/${MISSING}` }, 'zaaktype', 'bad-url'],
      ['zaken', { ...z, zaaktype: sl.html }, 'zaaktype', 'invalid-resource'],
      ['zaken', { ...z, hoofdzaak: missingUrl('zaken') }, 'hoofdzaak', 'does_not_exist'],
      ['zaken', { ...z, hoofdzaak: objects.rollen!.url }, 'hoofdzaak', 'no_match'],
      ['zaken', { ...z, relevanteAndereZaken: [{ url: missingUrl('zaken'), aardRelatie: 'vervolg' }] }, 'relevanteAndereZaken.0.url', 'bad-url'],
      ['zaken', { ...z, relevanteAndereZaken: [{ url: zaak.url, aardRelatie: 'familie' }] }, 'relevanteAndereZaken.0.aardRelatie', 'invalid_choice'],
      ['zaken', { ...z, communicatiekanaal: `${sl.url}/communicatiekanalen/${MISSING}` }, 'communicatiekanaal', 'bad-url'],
      ['zaken', { ...z, productenOfDiensten: ['geen url'] }, 'productenOfDiensten.0', 'invalid'],
      ['zaken', { ...z, zaakgeometrie: { type: 'Point', coordinates: [5] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'Cirkel', coordinates: [5, 52] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'Polygon', coordinates: [ring.slice(0, 3)] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'Polygon', coordinates: [[...ring.slice(0, 3), [5, 52.5]]] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'Polygon', coordinates: [] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'MultiPolygon', coordinates: [[ring.slice(1)]] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'Point', coordinates: [500, 52] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'Point', coordinates: [5, 95] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [5, -91] }] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, zaakgeometrie: { type: 'LineString', coordinates: [[5, 52]] } }, 'zaakgeometrie', ''],
      ['zaken', { ...z, processobject: { datumkenmerk: 'd' } }, 'processobject.identificatie', 'required'],
      ['statussen', part('statussen', { statustype: `${BASE}${ZTC}/statustypen/${MISSING}` }), 'statustype', 'bad-url'],
      ['statussen', part('statussen', { statustype: s.roltype }), 'statustype', 'invalid-resource'],
      ['statussen', part('statussen', { statustype: other.statustypen.begin }), 'nonFieldErrors', 'zaaktype-mismatch'],
      ['statussen', part('statussen', { datumStatusGezet: '2024-03-02 10:00' }), 'datumStatusGezet', 'invalid'],
      ['statussen', part('statussen', { zaak: missingUrl('zaken') }), 'zaak', 'bad-url'],
      ['statussen', part('statussen', { zaak: objects.rollen!.url }), 'zaak', 'bad-url'],
      ['statussen', part('statussen', { zaak: `${sl.url}/zaken/1` }), 'zaak', 'bad-url'],
      ['statussen', part('statussen', { gezetdoor: missingUrl('rollen') }), 'gezetdoor', 'bad-url'],
      ['resultaten', part('resultaten', { zaak: otherZaak.url, resultaattype: s.eigenschap }), 'resultaattype', 'invalid-resource'],
      ['resultaten', part('resultaten', { zaak: otherZaak.url, resultaattype: other.resultaattype }), 'nonFieldErrors', 'zaaktype-mismatch'],
      ['rollen', part('rollen', { betrokkeneType: 'kat' }), 'betrokkeneType', 'invalid_choice'],
      ['rollen', part('rollen', { roltype: `${BASE}${ZTC}/roltypen/${MISSING}` }), 'roltype', 'bad-url'],
      ['rollen', part('rollen', { indicatieMachtiging: 'baas' }), 'indicatieMachtiging', 'invalid'],
      ['rollen', part('rollen', { betrokkene: '', betrokkeneIdentificatie: null }), 'nonFieldErrors', 'invalid-betrokkene'],
      ['rollen', part('rollen', { contactpersoonRol: { naam: 'n', emailadres: 'geen mail' } }), 'contactpersoonRol.emailadres', 'invalid'],
      ['zaakobjecten', part('zaakobjecten', { objectType: 'kasteel' }), 'objectType', 'invalid_choice'],
      ['zaakobjecten', part('zaakobjecten', { object: '', objectIdentificatie: null }), 'nonFieldErrors', 'invalid-zaakobject'],
      [
        'zaakobjecten',
        part('zaakobjecten', { objectType: 'overige', objectTypeOverige: '', objectIdentificatie: { overigeData: {} } }),
        'objectTypeOverige',
        'required',
      ],
      ['zaakobjecten', part('zaakobjecten', { objectType: 'overige', objectTypeOverige: 'ALLEEN HOOFDLETTERS' }), 'objectTypeOverige', 'invalid'],
      ['zaakobjecten', part('zaakobjecten', { zaakobjecttype: `${BASE}${ZTC}/zaakobjecttypen/${MISSING}` }), 'zaakobjecttype', 'bad-url'],
      [
        'zaakobjecten',
        part('zaakobjecten', { objectTypeOverigeDefinitie: { url: 'x', schema: 's', objectData: 'o' } }),
        'objectTypeOverigeDefinitie.url',
        'invalid',
      ],
      [
        'zaakinformatieobjecten',
        part('zaakinformatieobjecten', { informatieobject: `${sl.url}/documenten/${MISSING}` }),
        'informatieobject',
        'bad-url',
      ],
      ['zaakinformatieobjecten', part('zaakinformatieobjecten', { informatieobject: sl.procestype }), 'informatieobject', 'invalid-resource'],
      ['zaakinformatieobjecten', part('zaakinformatieobjecten', { status: missingUrl('statussen') }), 'status', 'bad-url'],
      ['zaakinformatieobjecten', part('zaakinformatieobjecten', { vernietigingsdatum: '2024-13-01T00:00:00Z' }), 'vernietigingsdatum', 'invalid'],
      ['klantcontacten', part('klantcontacten', { datumtijd: 'gisteren' }), 'datumtijd', 'invalid'],
      ['klantcontacten', part('klantcontacten', { identificatie: 'x'.repeat(15) }), 'identificatie', 'max_length'],
      ['zaakcontactmomenten', part('zaakcontactmomenten', { contactmoment: `${sl.url}/contactmomenten/${MISSING}` }), 'contactmoment', 'bad-url'],
      ['zaakcontactmomenten', part('zaakcontactmomenten', { contactmoment: sl.html }), 'contactmoment', 'invalid-resource'],
      ['zaakverzoeken', part('zaakverzoeken', { verzoek: 'http://127.0.0.1:9/verzoeken/1' }), 'verzoek', 'bad-url'],
      ['zaakeigenschappen', part('zaakeigenschappen', { eigenschap: `${BASE}${ZTC}/eigenschappen/${MISSING}` }), 'eigenschap', 'bad-url'],
      ['zaakeigenschappen', part('zaakeigenschappen', { zaak: otherZaak.url }), 'zaak', 'wijzigen-niet-toegelaten'],
      ['besluiten', part('besluiten', { besluit: `${sl.url}/besluiten/${MISSING}` }), 'besluit', 'bad-url'],
      ['besluiten', part('besluiten', { besluit: sl.procestype }), 'besluit', 'invalid-resource'],
    ];
    for (const [resource, body, name, code] of cases) {
      const op = OPS.find((o) => o.resource === resource && o.kind === 'create')!;
      problems.expect(`POST ${op.path} ${JSON.stringify(body).slice(0, 200)}`, await call('POST', pathOf(op), body), 400, name, code || undefined);
    }
    // The same rules on PUT and PATCH.
    problems.expect('PATCH zaak hoofdzaak', await call('PATCH', zaak.url, { hoofdzaak: missingUrl('zaken') }), 400, 'hoofdzaak', 'does_not_exist');
    problems.expect(
      'PATCH zaak geometrie',
      await call('PATCH', zaak.url, { zaakgeometrie: { type: 'Polygon', coordinates: [ring.slice(0, 3)] } }),
      400,
      'zaakgeometrie',
    );
    problems.expect(
      'PUT resultaat',
      await call('PUT', objects.resultaten!.url, part('resultaten', { resultaattype: other.resultaattype })),
      400,
      'nonFieldErrors',
      'zaaktype-mismatch',
    );
    problems.expect(
      'PATCH zaakobject',
      await call('PATCH', objects.zaakobjecten!.url, { zaak: otherZaak.url }),
      400,
      'zaak',
      'wijzigen-niet-toegelaten',
    );
    problems.expect(
      'PATCH zio',
      await call('PATCH', objects.zaakinformatieobjecten!.url, { informatieobject: sl.procestype }),
      400,
      'informatieobject',
      'wijzigen-niet-toegelaten',
    );
    // Valid GeoJSON whose edges cross: the stand-in store keeps it, MongoDB's index refuses it (next test).
    problems.check('POST zaak bowtie', await call('POST', `${ZRC}/zaken`, { ...z, zaakgeometrie: BOWTIE }));
  });

  it('a geometry that MongoDB refuses (index keys on a write, the area of a query) is a 400 on the field', async () => {
    const coll = t.deps.components.zaken!.zaken.store.raw as unknown as Record<string, unknown>;
    /** Sends a request while the zaken collection refuses every write and read with this MongoDB error. */
    const refusing = async (code: number, message: string, request: () => Promise<LightMyRequestResponse>) => {
      const fail = () => Promise.reject(new MongoServerError({ message, code }));
      // Cursors (find, aggregate) chain their options and fail when read.
      const cursor: unknown = new Proxy(
        {},
        { get: (_t, key) => (['toArray', 'next', 'hasNext', 'forEach'].includes(String(key)) ? fail : () => cursor) },
      );
      const patches: Record<string, unknown> = {
        insertOne: fail,
        updateOne: fail,
        replaceOne: fail,
        findOneAndUpdate: fail,
        countDocuments: fail,
        find: () => cursor,
        aggregate: () => cursor,
      };
      const originals = Object.fromEntries(Object.keys(patches).map((k) => [k, coll[k]]));
      Object.assign(coll, patches);
      try {
        return await request();
      } finally {
        Object.assign(coll, originals);
      }
    };
    const edges = "Can't extract geo keys: { _id: ... } Edges 0 and 2 cross";
    problems.expect(
      'POST refused geometry',
      await refusing(16755, edges, () => call('POST', `${ZRC}/zaken`, { ...bodies.zaken, zaakgeometrie: BOWTIE })),
      400,
      'zaakgeometrie',
      'invalid',
    );
    const patch = await refusing(16755, edges, () => call('PATCH', zaak.url, { zaakgeometrie: BOWTIE }));
    problems.expect('PATCH refused geometry', patch, 400, 'zaakgeometrie', 'invalid');
    const zoek = await refusing(2, 'Loop is not valid: Edges 0 and 2 cross', () =>
      call('POST', `${ZRC}/zaken/_zoek`, { zaakgeometrie: { within: BOWTIE } }),
    );
    problems.expect('_zoek refused area', zoek, 400, 'zaakgeometrie.within', 'invalid');
    expect(zoek.body).not.toMatch(/Edges|Loop/);
    // Other database errors stay what they are.
    expect((await refusing(10334, 'BSONObjectTooLarge', () => call('POST', `${ZRC}/zaken`, bodies.zaken))).statusCode).toBe(500);
    // A key a unique index refuses is a 400 on its field.
    const dup = await refusing(
      11000,
      'E11000 duplicate key error collection: zaken index: identificatie_1 dup key: { identificatie: "ZAAK-1" }',
      () => call('POST', `${ZRC}/zaken`, bodies.zaken),
    );
    expect([dup.statusCode, dup.json().invalidParams]).toEqual([
      400,
      [{ name: 'identificatie', code: 'unique', reason: expect.not.stringContaining('ZAAK-1') }],
    ]);
  });

  it('odd JSON that MongoDB cannot store or query: operator keys, dotted keys, deep nesting', async () => {
    let deep: Record<string, unknown> = { blad: 1 };
    for (let i = 0; i < 120; i++) deep = { tak: deep };
    const label = (data: unknown) => json(data).slice(0, 60);
    const overige = (overigeData: unknown) => ({
      ...bodies.zaakobjecten,
      objectType: 'overige',
      objectTypeOverige: 'boom',
      objectIdentificatie: { overigeData },
    });
    for (const data of [{ $set: { a: 1 } }, { 'a.b': 1 }, { '': 1 }, { tekst: 'nul\u0000teken' }]) {
      problems.expect(`overigeData ${label(data)}`, await call('POST', `${ZRC}/zaakobjecten`, overige(data)), 201);
      problems.expect(`PUT overigeData ${label(data)}`, await call('PUT', objects.zaakobjecten!.url, overige(data)), 200);
    }
    for (const data of [deep, { a: DEEP }, { ['\u0000']: 1 }, { a: [{ ['b\u0000']: 1 }] }]) {
      problems.expect(`overigeData ${label(data)}`, await call('POST', `${ZRC}/zaakobjecten`, overige(data)), 400, 'objectIdentificatie.overigeData');
      problems.expect(
        `PUT overigeData ${label(data)}`,
        await call('PUT', objects.zaakobjecten!.url, overige(data)),
        400,
        'objectIdentificatie.overigeData',
      );
    }
    // Deep nesting anywhere else in a body is dropped (unknown fields) or refused by its schema.
    for (const body of [
      { ...bodies.zaken, onbekend: DEEP },
      { ...bodies.zaken, kenmerken: DEEP },
    ]) {
      problems.check('deep nesting in a zaak', await call('POST', `${ZRC}/zaken`, body));
    }
    problems.check(
      'deep betrokkeneIdentificatie',
      await call('POST', `${ZRC}/rollen`, { ...bodies.rollen, betrokkeneIdentificatie: { identificatie: DEEP, a: DEEP } }),
    );
    for (const ident of [{ $ne: 1 }, { identificatie: { $gt: '' } }]) {
      problems.check(
        `objectIdentificatie ${JSON.stringify(ident)}`,
        await call('POST', `${ZRC}/zaakobjecten`, { ...bodies.zaakobjecten, objectIdentificatie: ident }),
      );
    }
    // Object types without an identificatie in the standard keep none, whatever is sent.
    for (const objectType of ['besluit', 'enkelvoudig_document', 'status']) {
      const res = await call('POST', `${ZRC}/zaakobjecten`, {
        ...bodies.zaakobjecten,
        objectType,
        object: 'https://elders.example/1',
        objectIdentificatie: { $where: 'x', 'a.b': 1 },
      });
      problems.check(`objectType ${objectType} with identificatie`, res);
      if (res.statusCode === 201) expect(res.json().objectIdentificatie).toBeNull();
    }
  });
});

describe('identificaties per type', () => {
  it('bad betrokkeneIdentificatie for each betrokkeneType names the field', async () => {
    const rol = (betrokkeneType: string, betrokkeneIdentificatie: unknown) => ({ ...bodies.rollen, betrokkeneType, betrokkeneIdentificatie });
    const cases: [string, unknown, string, string][] = [
      ['natuurlijk_persoon', { inpBsn: 123456789 }, 'betrokkeneIdentificatie.inpBsn', 'invalid'],
      ['natuurlijk_persoon', { inpBsn: '1234567890' }, 'betrokkeneIdentificatie.inpBsn', 'max_length'],
      ['natuurlijk_persoon', { geslachtsaanduiding: 'x' }, 'betrokkeneIdentificatie.geslachtsaanduiding', 'invalid_choice'],
      ['natuurlijk_persoon', { inpA_nummer: '0123456789' }, 'betrokkeneIdentificatie.inpA_nummer', 'invalid'],
      ['natuurlijk_persoon', { verblijfsadres: {} }, 'betrokkeneIdentificatie.verblijfsadres.aoaIdentificatie', 'required'],
      [
        'natuurlijk_persoon',
        { verblijfsadres: { aoaIdentificatie: 'a', wplWoonplaatsNaam: 'w', gorOpenbareRuimteNaam: 'g', aoaHuisnummer: 'tien' } },
        'betrokkeneIdentificatie.verblijfsadres.aoaHuisnummer',
        'invalid',
      ],
      ['natuurlijk_persoon', { subVerblijfBuitenland: 'x' }, 'betrokkeneIdentificatie.subVerblijfBuitenland', 'invalid'],
      ['niet_natuurlijk_persoon', { innNnpId: '1234567890' }, 'betrokkeneIdentificatie.innNnpId', 'max_length'],
      ['niet_natuurlijk_persoon', { innRechtsvorm: 'bv' }, 'betrokkeneIdentificatie.innRechtsvorm', 'invalid_choice'],
      ['vestiging', { handelsnaam: 'x' }, 'betrokkeneIdentificatie.handelsnaam', 'not_a_list'],
      ['vestiging', { kvkNummer: '123456789' }, 'betrokkeneIdentificatie.kvkNummer', 'max_length'],
      ['organisatorische_eenheid', { naam: 'x'.repeat(51) }, 'betrokkeneIdentificatie.naam', 'max_length'],
      ['medewerker', { identificatie: 'x'.repeat(25) }, 'betrokkeneIdentificatie.identificatie', 'max_length'],
    ];
    for (const type of ['natuurlijk_persoon', 'niet_natuurlijk_persoon', 'vestiging', 'organisatorische_eenheid', 'medewerker']) {
      for (const value of ['x', 5, [], [{}], true]) cases.push([type, value, 'betrokkeneIdentificatie', '']);
    }
    for (const [type, value, name, code] of cases) {
      problems.expect(`rol ${type} ${JSON.stringify(value)}`, await call('POST', `${ZRC}/rollen`, rol(type, value)), 400, name, code || undefined);
    }
  });

  it('bad objectIdentificatie for each objectType is a 400 on objectIdentificatie', async () => {
    const TYPES = [
      'adres',
      'besluit',
      'buurt',
      'enkelvoudig_document',
      'gemeente',
      'gemeentelijke_openbare_ruimte',
      'huishouden',
      'inrichtingselement',
      'kadastrale_onroerende_zaak',
      'kunstwerkdeel',
      'maatschappelijke_activiteit',
      'medewerker',
      'natuurlijk_persoon',
      'niet_natuurlijk_persoon',
      'openbare_ruimte',
      'organisatorische_eenheid',
      'pand',
      'spoorbaandeel',
      'status',
      'terreindeel',
      'terrein_gebouwd_object',
      'vestiging',
      'waterdeel',
      'wegdeel',
      'wijk',
      'woonplaats',
      'woz_deelobject',
      'woz_object',
      'woz_waarde',
      'zakelijk_recht',
      'overige',
    ];
    const WITHOUT_IDENTIFICATIE = ['besluit', 'enkelvoudig_document', 'status'];
    /** Every string field of every identificatie too long, every number a word, every enum unknown, every object a string. */
    const garbage = {
      identificatie: 'x'.repeat(101),
      type: 'onbekend',
      typeWaterdeel: 'oceaan',
      naam: 'x'.repeat(600),
      huisnummer: 'tien',
      nummer: 12,
      overigeData: 'x',
      buurtCode: 'xxx',
      gemeenteCode: 'xxxxx',
      wijkCode: 'xxx',
      kvkNummer: 'x'.repeat(9),
      kadastraleIdentificatie: 5,
      wozObjectNummer: 5,
      nummerWozDeelObject: 'x'.repeat(7),
      waardepeildatum: 'x'.repeat(10),
      avgAard: 5,
      inpBsn: 'x'.repeat(10),
      innNnpId: 'x'.repeat(10),
      vestigingsNummer: 'x'.repeat(25),
    };
    for (const objectType of TYPES) {
      const body = (objectIdentificatie: unknown) => ({
        ...bodies.zaakobjecten,
        objectType,
        object: '',
        objectTypeOverige: objectType === 'overige' ? 'boom' : '',
        objectIdentificatie,
      });
      for (const value of ['x', 5, [], true]) {
        problems.expect(
          `zaakobject ${objectType} ${JSON.stringify(value)}`,
          await call('POST', `${ZRC}/zaakobjecten`, body(value)),
          400,
          'objectIdentificatie',
        );
      }
      const res = await call('POST', `${ZRC}/zaakobjecten`, body(garbage));
      if (WITHOUT_IDENTIFICATIE.includes(objectType))
        problems.expect(`zaakobject ${objectType} garbage`, res, 400, 'nonFieldErrors', 'invalid-zaakobject');
      else problems.expect(`zaakobject ${objectType} garbage`, res, 400, 'objectIdentificatie');
      // PATCH to another objectType validates the stored identificatie against the new type.
      problems.check(`PATCH zaakobject objectType ${objectType}`, await call('PATCH', objects.zaakobjecten!.url, { objectType }));
    }
  });
});

describe('query parameters', () => {
  const URL_FILTERS: Record<string, string[]> = {
    zaken: ['zaaktype', 'rol__betrokkene'],
    statussen: ['zaak', 'statustype'],
    resultaten: ['zaak', 'resultaattype'],
    rollen: ['zaak', 'betrokkene', 'roltype'],
    zaakobjecten: ['zaak', 'object'],
    zaakinformatieobjecten: ['zaak', 'informatieobject'],
    klantcontacten: ['zaak'],
    zaakcontactmomenten: ['zaak', 'contactmoment'],
    zaakverzoeken: ['zaak', 'verzoek'],
  };
  const ENUM_FILTERS: Record<string, string[]> = {
    zaken: [
      'archiefnominatie',
      'archiefstatus',
      'rol__betrokkeneType',
      'rol__omschrijvingGeneriek',
      'maximaleVertrouwelijkheidaanduiding',
      'ordering',
    ],
    statussen: ['indicatieLaatstGezetteStatus'],
    rollen: ['betrokkeneType', 'omschrijvingGeneriek'],
    zaakobjecten: ['objectType'],
  };
  const DATES = ['archiefactiedatum', 'startdatum', 'registratiedatum', 'einddatum', 'einddatumGepland', 'uiterlijkeEinddatumAfdoening'];
  const DATE_FILTERS = DATES.flatMap((d) => [d, `${d}__gt`, `${d}__lt`]).concat('startdatum__gte', 'startdatum__lte');
  const BOOLEAN_FILTERS = ['archiefactiedatum__isnull', 'einddatum__isnull'];
  const IDENTIFICATIES = [
    'natuurlijkPersoon__inpBsn',
    'natuurlijkPersoon__anpIdentificatie',
    'natuurlijkPersoon__inpA_nummer',
    'nietNatuurlijkPersoon__innNnpId',
    'nietNatuurlijkPersoon__annIdentificatie',
    'vestiging__vestigingsNummer',
    'organisatorischeEenheid__identificatie',
    'medewerker__identificatie',
  ].map((f) => `betrokkeneIdentificatie__${f}`);
  const TEXT_FILTERS: Record<string, string[]> = {
    zaken: [
      'identificatie',
      'bronorganisatie',
      'bronorganisatie__in',
      'archiefnominatie__in',
      'archiefstatus__in',
      ...IDENTIFICATIES.map((f) => `rol__${f}`),
    ],
    rollen: ['omschrijving', ...IDENTIFICATIES],
  };
  const lists = OPS.filter((o) => o.kind === 'list');

  it('filters with values of the wrong kind are a 400 naming the parameter', async () => {
    for (const op of lists) {
      const get = (query: string) => call('GET', `${pathOf(op)}?${query}`);
      for (const f of URL_FILTERS[op.resource] ?? []) {
        for (const v of ['x', 'geen%20url', '12345']) problems.expect(`${op.path}?${f}=${v}`, await get(`${f}=${v}`), 400, f, 'invalid');
        problems.expect(`${op.path}?${f}=unknown`, await get(`${f}=${encodeURIComponent(missingUrl('zaken'))}`), 200);
      }
      for (const f of ENUM_FILTERS[op.resource] ?? []) problems.expect(`${op.path}?${f}=onbekend`, await get(`${f}=onbekend`), 400, f);
      if (op.resource === 'zaken') {
        for (const f of DATE_FILTERS) {
          for (const v of ['x', '2024-02-30', '2024-13-01', '01-01-2024'])
            problems.expect(`${op.path}?${f}=${v}`, await get(`${f}=${v}`), 400, f, 'invalid');
        }
        for (const f of BOOLEAN_FILTERS) problems.expect(`${op.path}?${f}=misschien`, await get(`${f}=misschien`), 400, f, 'invalid_choice');
        for (const v of ['-', 'startdatum,onbekend', 'uuid', '_id']) problems.expect(`ordering=${v}`, await get(`ordering=${v}`), 400, 'ordering');
        for (const v of ['onbekend', 'rollen.onbekend', 'a.b.c.d.e.f', 'zaaktype..status', 'rollen.$where'])
          problems.expect(`expand=${v}`, await get(`expand=${v}`), 400, 'expand');
      }
      for (const f of TEXT_FILTERS[op.resource] ?? []) problems.check(`${op.path}?${f}=long`, await get(`${f}=${'9'.repeat(500)}`));
    }
    for (const v of ['onbekend', 'rollen.zaak.onbekend'])
      problems.expect(`read expand=${v}`, await call('GET', `${zaak.url}?expand=${v}`), 400, 'expand');
  });

  it('bad pages are 404 (the standard\'s "Ongeldige pagina"), odd values and repeated parameters never a 5xx', async () => {
    const paginated = lists.filter(
      (o) => !['zaakinformatieobjecten', 'zaakcontactmomenten', 'zaakverzoeken', 'zaakeigenschappen', 'besluiten', 'audittrail'].includes(o.resource),
    );
    for (const op of paginated) {
      for (const page of ['0', '-1', 'abc', '1.5', '999', '99999999999999999999', '1e3', '0x10']) {
        problems.expect(`${op.path}?page=${page}`, await call('GET', `${pathOf(op)}?page=${page}`), 404);
      }
    }
    for (const page of ['0', 'abc', '99999999999999999999'])
      problems.expect(`_zoek?page=${page}`, await call('POST', `${ZRC}/zaken/_zoek?page=${page}`, {}), 404);
    for (const op of lists) {
      const own = [...(URL_FILTERS[op.resource] ?? []), ...(ENUM_FILTERS[op.resource] ?? []), ...(TEXT_FILTERS[op.resource] ?? [])];
      const filters = op.resource === 'zaken' ? [...own, ...DATE_FILTERS, ...BOOLEAN_FILTERS, 'expand'] : own;
      for (const f of [...filters, 'page']) {
        for (const v of ['%E2%82', '', '%00', `a&${f}=b`, '%24where', '[object Object]']) {
          problems.check(`${op.path}?${f}=${v}`, await call('GET', `${pathOf(op)}?${f}=${v}`));
        }
      }
      problems.check(`${op.path}?a[b]=c`, await call('GET', `${pathOf(op)}?zaak[$ne]=x&__proto__=1&constructor=2`));
    }
  });

  it('bad _zoek bodies name the field', async () => {
    const ring = [
      [5, 52],
      [6, 52],
      [6, 53],
      [5, 52],
    ];
    const cases: [Record<string, unknown>, string][] = [
      [{ uuid__in: 'abc' }, 'uuid__in'],
      [{ uuid__in: zaak.uuid }, 'uuid__in'],
      [{ uuid__in: ['abc'] }, 'uuid__in.0'],
      [{ uuid__in: [5] }, 'uuid__in.0'],
      [{ zaaktype__in: ['geen url'] }, 'zaaktype__in.0'],
      [{ zaaktype__in: s.zaaktype }, 'zaaktype__in'],
      [{ zaakgeometrie: 'x' }, 'zaakgeometrie'],
      [{ zaakgeometrie: { within: 'x' } }, 'zaakgeometrie.within'],
      [{ zaakgeometrie: { within: { type: 'Cirkel', coordinates: [5, 52] } } }, 'zaakgeometrie.within'],
      [{ zaakgeometrie: { within: { type: 'Polygon', coordinates: 'x' } } }, 'zaakgeometrie.within'],
      [{ zaakgeometrie: { within: { type: 'Polygon', coordinates: [ring.slice(0, 3)] } } }, 'zaakgeometrie.within'],
      [
        {
          zaakgeometrie: {
            within: {
              type: 'Polygon',
              coordinates: [
                [
                  [500, 0],
                  [501, 0],
                  [501, 1],
                  [500, 0],
                ],
              ],
            },
          },
        },
        'zaakgeometrie.within',
      ],
      [{ ordering: 'onbekend' }, 'ordering'],
      [{ ordering: ['startdatum'] }, 'ordering'],
      [{ expand: 5 }, 'expand'],
      [{ expand: 'onbekend' }, 'expand'],
      [{ startdatum: 'gisteren' }, 'startdatum'],
      [{ startdatum__gt: 20240101 }, 'startdatum__gt'],
      [{ einddatum__isnull: 'misschien' }, 'einddatum__isnull'],
      [{ archiefnominatie: 'altijd' }, 'archiefnominatie'],
      [{ bronorganisatie__in: '000000000' }, 'bronorganisatie__in'],
      [{ archiefstatus__in: ['weg'] }, 'archiefstatus__in.0'],
      [{ archiefnominatie__in: [5] }, 'archiefnominatie__in.0'],
      [{ rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: 123456789 }, 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn'],
      [{ rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: '1234567890' }, 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn'],
      [{ rol__betrokkeneType: 'kat' }, 'rol__betrokkeneType'],
      [{ rol__betrokkene: 'geen url' }, 'rol__betrokkene'],
      [{ zaaktype: 'geen url' }, 'zaaktype'],
      [{ identificatie: { $ne: null } }, 'identificatie'],
      [{ bronorganisatie: ['a'] }, 'bronorganisatie'],
    ];
    for (const [body, name] of cases) {
      problems.expect(`_zoek ${JSON.stringify(body)}`, await call('POST', `${ZRC}/zaken/_zoek`, body), 400, name);
    }
    problems.check('_zoek in a bowtie', await call('POST', `${ZRC}/zaken/_zoek`, { zaakgeometrie: { within: BOWTIE } }));
    // A well-formed area that holds nothing finds nothing.
    const empty = await call('POST', `${ZRC}/zaken/_zoek`, {
      zaakgeometrie: { within: { type: 'Polygon', coordinates: [ring] } },
      uuid__in: [MISSING],
    });
    problems.expect('_zoek in an empty area', empty, 200);
  });
});

describe('geometry headers', () => {
  it('missing Accept-Crs or Content-Crs is 412, another CRS 406, on the geometry operations; DELETE and HEAD need neither', async () => {
    const geo = OPS.filter((o) => o.resource === 'zaken');
    for (const op of geo) {
      const send = (headers: Record<string, string>) =>
        t.call(op.method, pathOf(op, { uuid: op.kind === 'delete' ? MISSING : undefined }), bodyOf(op), { headers });
      if (op.kind === 'delete' || op.kind === 'head') {
        problems.check(`${op.method} ${op.path} without CRS`, await send({}));
        expect((await send({})).statusCode).not.toBe(412);
        continue;
      }
      problems.expect(`${op.method} ${op.path} without Accept-Crs`, await send({ 'content-crs': 'EPSG:4326' }), 412);
      for (const crs of ['EPSG:28992', 'epsg:4326 ', 'EPSG:4326,EPSG:28992', '']) {
        problems.expect(`${op.method} ${op.path} Accept-Crs ${crs}`, await send({ 'accept-crs': crs, 'content-crs': 'EPSG:4326' }), 406);
      }
      if (op.kind === 'create' || op.kind === 'update' || op.kind === 'partial_update') {
        problems.expect(`${op.method} ${op.path} without Content-Crs`, await send({ 'accept-crs': 'EPSG:4326' }), 412);
        problems.expect(
          `${op.method} ${op.path} Content-Crs EPSG:28992`,
          await send({ 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:28992' }),
          406,
        );
      }
    }
  });
});

// Last: it deletes what the cases above use.
describe('the same operations with valid input', () => {
  it('every one of the 62 answers with its success status and does what it says', async () => {
    const expected: Record<Kind, number> = { list: 200, create: 201, zoek: 200, read: 200, head: 200, update: 200, partial_update: 200, delete: 204 };
    const done = new Set<Op>();
    const run = async (op: Op) => {
      const obj = objects[op.resource]!;
      const path = pathOf(op);
      if (op.kind === 'create') {
        const url = op.path.includes('{zaak_uuid}') ? pathOf(op).replace(/\/$/, '') : `${ZRC}${op.path}`;
        // a second resultaat of a zaak is refused (unique): create it for the other zaak; a besluit is linked once
        const body =
          op.resource === 'resultaten'
            ? { ...bodies.resultaten, zaak: otherZaak.url }
            : op.resource === 'besluiten'
              ? { besluit: sl.add(`besluiten/${randomUUID()}`, { besluittype: 'https://elders.example/besluittypen/1' }) }
              : bodies[op.resource];
        const res = await call('POST', url, body);
        expect({ op: `${op.method} ${op.path}`, status: res.statusCode }).toEqual({ op: `${op.method} ${op.path}`, status: 201 });
        expect(res.json().url).toMatch(/^http/);
      } else {
        const body = op.kind === 'partial_update' ? partial(op.resource) : op.kind === 'zoek' ? { uuid__in: [zaak.uuid] } : bodyOf(op);
        const res = await call(op.method, path, body);
        expect({ op: `${op.method} ${op.path}`, status: res.statusCode }).toEqual({ op: `${op.method} ${op.path}`, status: expected[op.kind] });
        if (op.kind === 'read') expect(res.json().url ?? `${zaak.url}/audittrail/${res.json().uuid}`).toBe(obj.url);
        if (op.kind === 'head') expect(res.body).toBe('');
        if (op.kind === 'list' || op.kind === 'zoek') {
          const body = res.json();
          const items = (Array.isArray(body) ? body : body.results) as { url?: string; uuid?: string }[];
          expect(items.some((i) => i.url === obj.url || i.uuid === obj.uuid)).toBe(true);
        }
        if (op.kind === 'partial_update') expect((await call('GET', obj.url)).json()).toMatchObject(partial(op.resource));
        if (op.kind === 'delete') expect((await call('GET', obj.url)).statusCode).toBe(404);
      }
      done.add(op);
    };
    // The zaak itself goes last: deleting it deletes its parts.
    const order = [
      ...OPS.filter((o) => o.kind !== 'delete'),
      ...OPS.filter((o) => o.kind === 'delete' && o.resource !== 'zaken'),
      ...OPS.filter((o) => o.kind === 'delete' && o.resource === 'zaken'),
    ];
    for (const op of order) await run(op);
    expect(done.size).toBe(62);
  });
});

/** A PATCH body per resource that changes one field. */
function partial(resource: string): Record<string, unknown> {
  const patches: Record<string, Record<string, unknown>> = {
    zaken: { omschrijving: 'Bijgewerkt' },
    resultaten: { toelichting: 'bijgewerkt' },
    zaakobjecten: { relatieomschrijving: 'bijgewerkt' },
    zaakinformatieobjecten: { titel: 'bijgewerkt' },
    zaakeigenschappen: { waarde: 'blauw' },
  };
  return patches[resource] ?? {};
}
