import { ZTC, catalogus, create, publish, resultaattypeBody, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';
import type { TestApp } from './harness';

export const ZRC = '/zaken/api/v1';
export const CRS = { 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' };

export interface ZaakSetup {
  zaaktype: string;
  statustypen: { begin: string; eind: string };
  roltype: string;
  resultaattype: string;
  eigenschap: string;
}

/** A published zaaktype with a begin and eind statustype, a roltype, a resultaattype (afgehandeld, P10Y) and an eigenschap. */
export async function zaaktypeMetOnderdelen(t: TestApp, sl: Referentielijsten, over: Record<string, unknown> = {}): Promise<ZaakSetup> {
  const cat = await catalogus(t, `Z${Math.floor(Math.random() * 1000)}`);
  const zt = await create(t, 'zaaktypen', zaaktypeBody(cat, { selectielijstProcestype: sl.procestype, ...over }));
  const part = (collection: string, body: Record<string, unknown>) => create(t, collection, { zaaktype: zt.url, ...body });
  const begin = await part('statustypen', { omschrijving: 'begin', volgnummer: 1 });
  const eind = await part('statustypen', { omschrijving: 'eind', volgnummer: 2 });
  const roltype = await part('roltypen', { omschrijving: 'Initiator', omschrijvingGeneriek: 'initiator' });
  const resultaattype = await part('resultaattypen', resultaattypeBody(sl));
  const eigenschap = await part('eigenschappen', {
    naam: 'kleur',
    definitie: 'kleur',
    specificatie: { formaat: 'tekst', lengte: '20', kardinaliteit: '1', waardenverzameling: [] },
  });
  await publish(t, zt.url);
  return {
    zaaktype: zt.url,
    statustypen: { begin: begin.url, eind: eind.url },
    roltype: roltype.url,
    resultaattype: resultaattype.url,
    eigenschap: eigenschap.url,
  };
}

export const zaakBody = (zaaktype: string, over: Record<string, unknown> = {}) => ({
  bronorganisatie: '000000000',
  verantwoordelijkeOrganisatie: '000000000',
  zaaktype,
  startdatum: '2024-03-01',
  omschrijving: 'Melding',
  ...over,
});

/** POSTs to a Zaken collection with the geometry headers; throws with the body when it is not a 201. */
export async function createZ(t: TestApp, path: string, body: unknown, opts: { token?: string } = {}): Promise<Record<string, any>> {
  const res = await t.call('POST', path.startsWith('http') ? path : `${ZRC}/${path}`, body, { ...opts, headers: CRS });
  if (res.statusCode !== 201) throw new Error(`POST ${path} gave ${res.statusCode}: ${res.body}`);
  return res.json();
}

export { ZTC };
