import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { DRC, EIO, createEio, eioBody, lock, zaaktypeMetBijlage } from './documenten.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, createZ, zaakBody } from './zaken.fixtures';

/**
 * Autorisaties 1.1: an applicatie with `alleenIsGereedVoorPublicatie` reads only documents whose isGereedVoorPublicatie
 * is true, on every path to a document, in both versions: a hidden document is absent from lists and counts and
 * 404 on every path to it and to its objects.
 */
let t: TestApp;
let sl: Referentielijsten;
let iot: string;
let zaaktype: string;

const V17 = { 'api-version': '1.7' };
const GR = `${DRC}/gebruiksrechten`;
const VZ = `${DRC}/verzendingen`;
const OIO = `${DRC}/objectinformatieobjecten`;
const DRC_SCOPES = [
  'documenten.lezen',
  'documenten.bijwerken',
  'documenten.lock',
  'documenten.verwijderen',
  'documenten.aanmaken',
  'audittrails.lezen',
];

/** A client whose applicatie reads only documents ready for publication. */
async function publicatieClient(clientId: string, rights: Record<string, unknown>): Promise<string> {
  await t.client(clientId, `${clientId}-secret`);
  const res = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [clientId],
    label: clientId,
    alleenIsGereedVoorPublicatie: true,
    ...rights,
  });
  if (res.statusCode !== 201) throw new Error(`applicatie: ${res.body}`);
  expect(res.json().alleenIsGereedVoorPublicatie).toBe(true);
  return token(clientId, `${clientId}-secret`);
}

let pub: string;
let pubAll: string;
let zaak: Record<string, any>;
/** Documents: ready for publication, not ready, readiness unknown (null), created by a 1.5 client (not ready). */
let ready: Record<string, any>;
let hidden: Record<string, any>;
let unknown: Record<string, any>;
let old: Record<string, any>;
const parts: Record<string, { gr: string; vz: string; oio: string }> = {};

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  ({ zaaktype, iot } = await zaaktypeMetBijlage(t, sl));
  pub = await publicatieClient('publicatie', {
    autorisaties: [
      { component: 'drc', scopes: DRC_SCOPES, informatieobjecttype: iot, maxVertrouwelijkheidaanduiding: 'zeer_geheim' },
      { component: 'zrc', scopes: ['zaken.lezen'], zaaktype, maxVertrouwelijkheidaanduiding: 'zeer_geheim' },
    ],
  });
  pubAll = await publicatieClient('publicatie-alles', { heeftAlleAutorisaties: true });

  zaak = await createZ(t, 'zaken', zaakBody(zaaktype));
  const make = async (over: Record<string, unknown>, headers: Record<string, string> = V17) => {
    const res = await t.call('POST', EIO, eioBody(iot, { identificatie: `AC11-${Object.keys(parts).length}`, trefwoorden: ['ac11'], ...over }), {
      headers,
    });
    if (res.statusCode !== 201) throw new Error(res.body);
    const eio = res.json();
    const gr = (await t.call('POST', GR, { informatieobject: eio.url, startdatum: '2024-01-01T12:00:00', omschrijvingVoorwaarden: 'intern' })).json()
      .url;
    const vz = (
      await t.call('POST', VZ, {
        informatieobject: eio.url,
        betrokkene: 'https://klanten.example.org/api/v1/klanten/1',
        aardRelatie: 'afzender',
        contactPersoon: 'https://medewerkers.example.org/api/v1/medewerkers/1',
      })
    ).json().url;
    await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: eio.url });
    const oio = (await t.call('GET', `${OIO}?informatieobject=${encodeURIComponent(eio.url)}`)).json()[0].url;
    parts[eio.url] = { gr, vz, oio };
    return eio;
  };
  ready = await make({ isGereedVoorPublicatie: true });
  hidden = await make({ isGereedVoorPublicatie: false });
  unknown = await make({ isGereedVoorPublicatie: null });
  old = await make({}, {});
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const urlsOf = (body: any): string[] => (Array.isArray(body) ? body : body.results).map((r: { url: string }) => r.url);

describe.each([
  ['1.5', {}],
  ['1.7', V17],
])('a client that reads only documents ready for publication (%s)', (version, headers: Record<string, string>) => {
  const as = (tok: string, method: string, url: string, body?: unknown) => t.call(method, url, body, { token: tok, headers });

  it('sees only them in the lists of documents and their counts, whatever the filter', async () => {
    for (const tok of [pub, pubAll]) {
      const byZaak = `?objectinformatieobjecten_object=${encodeURIComponent(zaak.url)}&objectinformatieobjecten_objectType=zaak`;
      // The filter on the objects a document is linked to is one of 1.7: 1.5 refuses it, never ignores it.
      if (version === '1.5') expect((await as(tok, 'GET', `${EIO}${byZaak}`)).statusCode).toBe(400);
      for (const q of [
        '',
        '?trefwoorden=ac11',
        '?bronorganisatie=000000000',
        `?identificatie=${hidden.identificatie}`,
        `?identificatie=${ready.identificatie}`,
        ...(version === '1.7' ? [byZaak] : []),
      ]) {
        const res = await as(tok, 'GET', `${EIO}${q}`);
        expect(res.statusCode).toBe(200);
        const expected = q.includes(hidden.identificatie) ? [] : [ready.url];
        expect(urlsOf(res.json())).toEqual(expected);
        expect(res.json().count).toBe(expected.length);
      }
      const zoek = await as(tok, 'POST', `${EIO}/_zoek`, { uuid__in: [ready, hidden, unknown, old].map((d) => d.url.split('/').pop()) });
      expect(zoek.statusCode).toBe(200);
      expect(urlsOf(zoek.json())).toEqual([ready.url]);
      expect(zoek.json().count).toBe(1);
    }
    // Without the restriction, all four.
    expect((await t.call('GET', `${EIO}?trefwoorden=ac11`, undefined, { headers })).json().count).toBe(4);
  });

  it('gets a 404 on every path to a hidden document', async () => {
    for (const doc of [hidden, unknown, old]) {
      for (const [method, url, body] of [
        ['GET', doc.url],
        ['GET', `${doc.url}?versie=1`],
        ['GET', `${doc.url}?registratieOp=2999-01-01T00:00:00Z`],
        ['GET', `${doc.url}/download`],
        ['GET', `${doc.url}/download?versie=1`],
        ['GET', `${doc.url}/audittrail`],
        ['POST', `${doc.url}/lock`],
        ['POST', `${doc.url}/unlock`, {}],
        ['PATCH', doc.url, { titel: 'x', lock: 'x' }],
        ['DELETE', doc.url],
      ] as [string, string, unknown?][]) {
        const res = await as(pub, method, url, body);
        expect([method, url, res.statusCode]).toEqual([method, url, 404]);
      }
      expect((await as(pubAll, 'GET', doc.url)).statusCode).toBe(404);
    }
    const res = await as(pub, 'GET', ready.url);
    expect(res.statusCode).toBe(200);
    expect((await as(pub, 'GET', `${ready.url}/download`)).body).toBe('hallo wereld');
    expect((await as(pub, 'GET', `${ready.url}/audittrail`)).statusCode).toBe(200);
    // The hidden documents are still there for everyone else.
    expect((await t.call('GET', hidden.url, undefined, { headers })).statusCode).toBe(200);
  });

  it('sees only the gebruiksrechten, verzendingen and objectinformatieobjecten of ready documents', async () => {
    for (const tok of [pub, pubAll]) {
      expect(urlsOf((await as(tok, 'GET', GR)).json())).toEqual([parts[ready.url]!.gr]);
      const vz = (await as(tok, 'GET', VZ)).json();
      expect(urlsOf(vz)).toEqual([parts[ready.url]!.vz]);
      expect(vz.count).toBe(1);
      expect(urlsOf((await as(tok, 'GET', OIO)).json())).toEqual([parts[ready.url]!.oio]);
      expect(urlsOf((await as(tok, 'GET', `${OIO}?object=${encodeURIComponent(zaak.url)}`)).json())).toEqual([parts[ready.url]!.oio]);
      expect(urlsOf((await as(tok, 'GET', `${VZ}?aardRelatie=afzender`)).json())).toEqual([parts[ready.url]!.vz]);
      for (const doc of [hidden, unknown, old]) {
        for (const list of [GR, VZ, OIO])
          expect(urlsOf((await as(tok, 'GET', `${list}?informatieobject=${encodeURIComponent(doc.url)}`)).json())).toEqual([]);
        for (const part of Object.values(parts[doc.url]!)) expect((await as(tok, 'GET', part)).statusCode).toBe(404);
      }
    }
    for (const part of Object.values(parts[ready.url]!)) expect((await as(pub, 'GET', part)).statusCode).toBe(200);
    // Nor change them, nor give a hidden document new ones.
    expect((await as(pub, 'PATCH', parts[hidden.url]!.gr, { omschrijvingVoorwaarden: 'x' })).statusCode).toBe(404);
    expect((await as(pub, 'DELETE', parts[hidden.url]!.vz)).statusCode).toBe(404);
    const gr = await as(pub, 'POST', GR, { informatieobject: hidden.url, startdatum: '2024-01-01T12:00:00', omschrijvingVoorwaarden: 'intern' });
    expect(gr.statusCode).toBe(400);
    expect(gr.json().invalidParams[0]).toMatchObject({ name: 'informatieobject', code: 'does_not_exist' });
  });

  it('sees them only in the expansions of the Documenten and Zaken APIs', async () => {
    const expanded = (await as(pub, 'GET', `${parts[ready.url]!.gr}?expand=informatieobject`)).json();
    expect(expanded._expand.informatieobject.url).toBe(ready.url);
    // (Zaken 1.7 expands into documents; 1.5.1 keeps to the Zaken and Catalogi APIs, zrc-025)
    const ZAKEN_17 = { ...CRS, 'api-version': '1.7' };
    const z = (
      await t.call('GET', `${zaak.url}?expand=zaakinformatieobjecten.informatieobject`, undefined, { token: pub, headers: ZAKEN_17 })
    ).json();
    const byDocument = new Map(z._expand.zaakinformatieobjecten.map((zio: any) => [zio.informatieobject, zio._expand.informatieobject]));
    expect(byDocument.size).toBe(4);
    expect(byDocument.get(ready.url)).toMatchObject({ url: ready.url, titel: ready.titel });
    for (const doc of [hidden, unknown, old]) expect(byDocument.get(doc.url)).toEqual({});
    // Without the restriction, the Zaken expansion shows every document.
    const all = (await t.call('GET', `${zaak.url}?expand=zaakinformatieobjecten.informatieobject`, undefined, { headers: ZAKEN_17 })).json();
    expect(all._expand.zaakinformatieobjecten.map((zio: any) => zio._expand.informatieobject.url).sort()).toEqual(
      [ready, hidden, unknown, old].map((d) => d.url).sort(),
    );
  });
});

describe('readiness changes', () => {
  it('show and hide a document with its objects at once, and its earlier versions by their own readiness', async () => {
    const doc = await createEio(t, eioBody(iot, { identificatie: 'AC11-LATER' }));
    const gr = (await t.call('POST', GR, { informatieobject: doc.url, startdatum: '2024-01-01T12:00:00', omschrijvingVoorwaarden: 'intern' })).json()
      .url;
    const seen = async () => ({
      detail: (await t.call('GET', doc.url, undefined, { token: pub })).statusCode,
      list: urlsOf((await t.call('GET', `${EIO}?identificatie=AC11-LATER`, undefined, { token: pub })).json()).length,
      gebruiksrechten: urlsOf((await t.call('GET', `${GR}?informatieobject=${encodeURIComponent(doc.url)}`, undefined, { token: pub })).json())
        .length,
      gr: (await t.call('GET', gr, undefined, { token: pub })).statusCode,
    });
    expect(await seen()).toEqual({ detail: 404, list: 0, gebruiksrechten: 0, gr: 404 });
    const l = await lock(t, doc.url);
    const v1 = (await t.call('GET', doc.url)).json().beginRegistratie;
    expect((await t.call('PATCH', doc.url, { isGereedVoorPublicatie: true, lock: l }, { headers: V17 })).statusCode).toBe(200);
    expect(await seen()).toEqual({ detail: 200, list: 1, gebruiksrechten: 1, gr: 200 });
    // Version 1 was not ready: it stays hidden; version 2 is readable, also by the moment it was registered.
    expect((await t.call('GET', `${doc.url}?versie=1`, undefined, { token: pub })).statusCode).toBe(404);
    expect((await t.call('GET', `${doc.url}/download?registratieOp=${encodeURIComponent(v1)}`, undefined, { token: pub })).statusCode).toBe(404);
    expect((await t.call('GET', `${doc.url}?versie=2`, undefined, { token: pub })).statusCode).toBe(200);
    expect((await t.call('GET', `${doc.url}?registratieOp=2999-01-01T00:00:00Z`, undefined, { token: pub })).json().versie).toBe(2);
    // A 1.5 write keeps it ready; a 1.7 write that makes it not ready hides it again.
    expect((await t.call('PATCH', doc.url, { titel: 'Bijgewerkt', lock: l })).statusCode).toBe(200);
    expect((await seen()).detail).toBe(200);
    expect((await t.call('PATCH', doc.url, { isGereedVoorPublicatie: null, lock: l }, { headers: V17 })).statusCode).toBe(200);
    expect(await seen()).toEqual({ detail: 404, list: 0, gebruiksrechten: 0, gr: 404 });
  });

  it('leaves an unfinished upload of a hidden document to those who see it', async () => {
    const res = await t.call('POST', EIO, eioBody(iot, { inhoud: undefined, bestandsomvang: 2048 }));
    const deel = res.json().bestandsdelen[0];
    const form = (tok: string) =>
      t.app.inject({
        method: 'PUT',
        url: deel.url.replace('http://127.0.0.1:8000', ''),
        payload: `--b\r\nContent-Disposition: form-data; name="lock"\r\n\r\n${res.json().lock}\r\n--b\r\nContent-Disposition: form-data; name="inhoud"; filename="d.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${'x'.repeat(2048)}\r\n--b--\r\n`,
        headers: { 'content-type': 'multipart/form-data; boundary=b', authorization: `Bearer ${tok}` },
      });
    expect((await form(pub)).statusCode).toBe(404);
    expect((await form(token())).statusCode).toBe(200);
  });
});
