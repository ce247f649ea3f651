import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { token, type TestApp } from './harness';

export const ZTC = '/catalogi/api/v1';

/** A tiny referentielijsten (selectielijst) API: two procestypen, resultaten per procestermijn, one omschrijving. */
export interface Referentielijsten {
  url: string;
  procestype: string;
  otherProcestype: string;
  resultaat: Record<'vast' | 'nihil' | 'bestaansduur' | 'leeg' | 'ander', string>;
  omschrijving: string;
  html: string;
  /** Serves any other JSON document at `path` (objects of other registrations that a test links to); returns its URL. */
  add(path: string, body: Record<string, unknown>): string;
  close(): Promise<void>;
}

export async function startReferentielijsten(): Promise<Referentielijsten> {
  const docs = new Map<string, unknown>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (path.endsWith('/html')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('');
    }
    const doc = docs.get(path);
    res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(doc ?? { detail: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  const add = (path: string, body: Record<string, unknown>) => {
    docs.set(`/api/v1/${path}`, { url: `${base}/${path}`, ...body });
    return `${base}/${path}`;
  };
  const procestype = add('procestypen/11111111-1111-4111-8111-111111111111', { nummer: 1, naam: 'Instellen', jaar: 2017 });
  const otherProcestype = add('procestypen/22222222-2222-4222-8222-222222222222', { nummer: 2, naam: 'Anders', jaar: 2017 });
  const resultaat = (id: string, procestermijn: string, procesType = procestype) =>
    add(`resultaten/${id}`, { procesType, procestermijn, nummer: 1, naam: 'R', waardering: 'vernietigen', bewaartermijn: 'P10Y' });
  return {
    url: base,
    procestype,
    otherProcestype,
    resultaat: {
      vast: resultaat('a1111111-1111-4111-8111-111111111111', 'vast_te_leggen_datum'),
      nihil: resultaat('a2222222-2222-4222-8222-222222222222', 'nihil'),
      bestaansduur: resultaat('a3333333-3333-4333-8333-333333333333', 'ingeschatte_bestaansduur_procesobject'),
      leeg: resultaat('a4444444-4444-4444-8444-444444444444', ''),
      ander: resultaat('a5555555-5555-4555-8555-555555555555', 'vast_te_leggen_datum', otherProcestype),
    },
    omschrijving: add('resultaattypeomschrijvingen/e6a0c939-3404-45b0-88e3-76c94fb80ea7', {
      omschrijving: 'Afgewezen',
      definitie: 'd',
      opmerking: '',
    }),
    html: `${base}/html`,
    add,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const zaaktypeBody = (catalogus: string, over: Record<string, unknown> = {}) => ({
  identificatie: 'ZT-1',
  omschrijving: 'Melding Openbare Ruimte',
  vertrouwelijkheidaanduiding: 'openbaar',
  doel: 'doel',
  aanleiding: 'aanleiding',
  indicatieInternOfExtern: 'extern',
  handelingInitiator: 'indienen',
  onderwerp: 'openbare ruimte',
  handelingBehandelaar: 'behandelen',
  doorlooptijd: 'P10D',
  opschortingEnAanhoudingMogelijk: false,
  verlengingMogelijk: false,
  publicatieIndicatie: false,
  productenOfDiensten: ['https://ref.example/standaard/'],
  referentieproces: { naam: 'test', link: '' },
  catalogus,
  besluittypen: [],
  gerelateerdeZaaktypen: [],
  beginGeldigheid: '2020-01-01',
  versiedatum: '2020-01-01',
  verantwoordelijke: 'Behandelaar',
  ...over,
});

/**
 * A resultaattype's body: Afgehandeld, the selectielijst's nihil resultaat, vernietigen after P10Y from the zaak's end
 * (brondatum afgehandeld); `over` changes fields (without a zaaktype: the caller adds it).
 */
export const resultaattypeBody = (sl: Referentielijsten, over: Record<string, unknown> = {}) => ({
  omschrijving: 'Afgehandeld',
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
  ...over,
});

export const besluittypeBody = (catalogus: string, over: Record<string, unknown> = {}) => ({
  catalogus,
  omschrijving: 'besluit',
  publicatieIndicatie: false,
  informatieobjecttypen: [],
  beginGeldigheid: '2020-01-01',
  ...over,
});

export const iotBody = (catalogus: string, over: Record<string, unknown> = {}) => ({
  catalogus,
  omschrijving: 'document',
  vertrouwelijkheidaanduiding: 'openbaar',
  beginGeldigheid: '2020-01-01',
  informatieobjectcategorie: 'categorie',
  ...over,
});

/** Creates a resource and returns its JSON, failing the test with the response body when it is not a 201. */
export async function create(t: TestApp, collection: string, body: unknown, opts?: { token?: string }): Promise<Record<string, any>> {
  const res = await t.call('POST', `${ZTC}/${collection}`, body, opts);
  if (res.statusCode !== 201) throw new Error(`POST ${collection} gave ${res.statusCode}: ${res.body}`);
  return res.json();
}

export async function catalogus(t: TestApp, domein = 'TST'): Promise<string> {
  return (await create(t, 'catalogussen', { domein, rsin: '000000000', contactpersoonBeheerNaam: 'Beheer' })).url;
}

/** A client with catalogi.lezen and catalogi.schrijven only (no geforceerd scopes). */
export async function limitedClient(t: TestApp, clientId = 'ztc-limited', scopes = ['catalogi.lezen', 'catalogi.schrijven']): Promise<string> {
  await t.client(clientId, 'limited-secret');
  const res = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [clientId],
    label: clientId,
    autorisaties: [{ component: 'ztc', scopes }],
  });
  if (res.statusCode !== 201) throw new Error(`applicatie: ${res.body}`);
  return token(clientId, 'limited-secret');
}

export async function publish(t: TestApp, url: string): Promise<void> {
  const res = await t.call('POST', `${url}/publish`);
  if (res.statusCode !== 200) throw new Error(`publish ${url} gave ${res.statusCode}: ${res.body}`);
}
