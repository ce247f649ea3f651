import { besluittypeBody, catalogus, create, iotBody, publish, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';
import { BASE, token, type TestApp } from './harness';

export const BRC = '/besluiten/api/v1';
export const BESLUITEN = `${BRC}/besluiten`;
export const BIO = `${BRC}/besluitinformatieobjecten`;
export const MISSING = '00000000-0000-4000-8000-000000000000';

export interface BesluitSetup {
  catalogus: string;
  /** A published besluittype whose informatieobjecttypen hold `informatieobjecttype`. */
  besluittype: string;
  /** A published informatieobjecttype (omschrijving `besluitdocument`). */
  informatieobjecttype: string;
}

/** A catalogus with a published informatieobjecttype and a published besluittype that knows it. */
export async function besluittypeMetDocumenttype(t: TestApp, over: Record<string, unknown> = {}): Promise<BesluitSetup> {
  const cat = await catalogus(t, `B${Math.floor(Math.random() * 10000)}`);
  const iot = await create(t, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'besluitdocument' }));
  await publish(t, iot.url);
  const bt = await create(
    t,
    'besluittypen',
    besluittypeBody(cat, { omschrijving: 'vergunning', informatieobjecttypen: ['besluitdocument'], ...over }),
  );
  await publish(t, bt.url);
  return { catalogus: cat, besluittype: bt.url, informatieobjecttype: iot.url };
}

export interface ZaakBesluitSetup extends BesluitSetup {
  /** A published zaaktype whose besluittypen hold `besluittype`, with a begin and eind statustype. */
  zaaktype: string;
  statustypen: { begin: string; eind: string };
  /**
   * Resultaattypen whose archiving brondatum is the latest ingangsdatum, or vervaldatum, of the zaak's besluiten, or
   * the latest `datum` of the besluiten its zaakobjecten of objectType besluit point at (P5Y each).
   */
  resultaattypen: { ingangsdatum: string; vervaldatum: string; zaakobject: string };
}

/**
 * A zaaktype (not yet published) of the besluittype's catalogus that knows the besluittype, with a begin and eind
 * statustype; `part` adds more to it. `over` changes the zaaktype's fields.
 */
export async function besluitZaaktype(t: TestApp, sl: Referentielijsten, b: BesluitSetup, over: Record<string, unknown> = {}) {
  const zt = await create(
    t,
    'zaaktypen',
    zaaktypeBody(b.catalogus, { selectielijstProcestype: sl.procestype, besluittypen: [b.besluittype], informatieobjecttypen: [], ...over }),
  );
  const part = (collection: string, body: Record<string, unknown>) => create(t, collection, { zaaktype: zt.url, ...body });
  const begin = await part('statustypen', { omschrijving: 'begin', volgnummer: 1 });
  const eind = await part('statustypen', { omschrijving: 'eind', volgnummer: 2 });
  return { zt, part, begin, eind };
}

/** Besluittype and informatieobjecttype as above, and a zaaktype of the same catalogus that knows the besluittype. */
export async function zaaktypeMetBesluittype(t: TestApp, sl: Referentielijsten): Promise<ZaakBesluitSetup> {
  const setup = await besluittypeMetDocumenttype(t);
  const { zt, part, begin, eind } = await besluitZaaktype(t, sl, setup);
  const resultaattype = (omschrijving: string, afleidingswijze: string, over: Record<string, unknown> = {}) =>
    part('resultaattypen', {
      omschrijving,
      resultaattypeomschrijving: sl.omschrijving,
      selectielijstklasse: sl.resultaat.vast,
      archiefnominatie: 'vernietigen',
      archiefactietermijn: 'P5Y',
      brondatumArchiefprocedure: {
        afleidingswijze,
        procestermijn: null,
        datumkenmerk: '',
        einddatumBekend: false,
        objecttype: '',
        registratie: '',
        ...over,
      },
    });
  const ingangsdatum = await resultaattype('Verleend', 'ingangsdatum_besluit');
  const vervaldatum = await resultaattype('Verlopen', 'vervaldatum_besluit');
  const zaakobject = await resultaattype('Besloten', 'zaakobject', { objecttype: 'besluit', datumkenmerk: 'datum' });
  await publish(t, zt.url);
  return {
    ...setup,
    zaaktype: zt.url,
    statustypen: { begin: begin.url, eind: eind.url },
    resultaattypen: { ingangsdatum: ingangsdatum.url, vervaldatum: vervaldatum.url, zaakobject: zaakobject.url },
  };
}

/** Another published besluittype in the same catalogus. */
export async function besluittype(t: TestApp, cat: string, over: Record<string, unknown> = {}): Promise<string> {
  const bt = await create(t, 'besluittypen', besluittypeBody(cat, { omschrijving: `ander ${Math.random()}`, ...over }));
  await publish(t, bt.url);
  return bt.url;
}

export const besluitBody = (besluittype: string, over: Record<string, unknown> = {}) => ({
  verantwoordelijkeOrganisatie: '000000000',
  besluittype,
  datum: '2024-03-01',
  ingangsdatum: '2024-03-02',
  ...over,
});

/** POSTs to a Besluiten collection; throws with the body when it is not a 201. */
export async function createB(t: TestApp, path: string, body: unknown, opts: { token?: string } = {}): Promise<Record<string, any>> {
  const res = await t.call('POST', path.startsWith('/') ? path : `${BRC}/${path}`, body, opts);
  if (res.statusCode !== 201) throw new Error(`POST ${path} gave ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** A client whose applicatie has these Besluiten autorisaties (and any others given with their component); returns its token. */
export async function brcClient(t: TestApp, clientId: string, autorisaties: Record<string, unknown>[]): Promise<string> {
  await t.client(clientId, `${clientId}-secret`);
  const res = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [clientId],
    label: clientId,
    autorisaties: autorisaties.map((a) => ({ component: 'brc', ...a })),
  });
  if (res.statusCode !== 201) throw new Error(`applicatie: ${res.body}`);
  return token(clientId, `${clientId}-secret`);
}

/** The URL of a resource of this platform's API that does not exist. */
export const missing = (collection: string) => `${BASE}${BRC}/${collection}/${MISSING}`;

/** The first invalidParams entry of a 400 answer. */
export const param = (res: { json(): any }) => (res.json().invalidParams as { name: string; code: string }[])[0];
