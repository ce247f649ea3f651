import type { ComponentDef } from '../../common/component';
import type { Resource } from '../../common/resource';
import { registerBesluittypen } from './besluittypen';
import { registerCatalogussen } from './catalogussen';
import type { Catalogi } from './context';
import { registerInformatieobjecttypen } from './informatieobjecttypen';
import { registerOnderdelen } from './onderdelen-defs';
import { markLinksPublished, markPartsPublished, registerPublish, zaaktypePublishCheck } from './publish';
import { SelectielijstClient } from './selectielijst';
import type { Doc } from './schemas';
import { registerZaaktypen } from './zaaktypen';
import { registerZiot } from './zaaktype-informatieobjecttypen';

/** Catalogi API 1.3.1 (ZTC): the types that Zaken, Documenten and Besluiten refer to, with the 1.3 history model. */
export const catalogi: ComponentDef = {
  name: 'catalogi',
  code: 'ztc',
  title: 'Catalogi API',
  version: '1.3.1',
  // Catalogi are reference data, read by every case and document; a read is served from memory until a write.
  cacheReads: true,
  async register(api) {
    // Rules of one type read the others at request time, so the registry is filled before any request arrives.
    const c = { api, selectielijst: new SelectielijstClient(api.deps) } as Catalogi;
    c.catalogussen = registerCatalogussen(c);
    c.zaaktypen = registerZaaktypen(c);
    c.besluittypen = registerBesluittypen(c);
    c.informatieobjecttypen = registerInformatieobjecttypen(c);
    Object.assign(c, registerOnderdelen(c));
    c.ziot = registerZiot(c);
    api.deps.components.set('catalogi', c);

    registerPublish(c, c.zaaktypen, { check: (doc, url) => zaaktypePublishCheck(c, doc, url), after: (url) => markPartsPublished(c, url) });
    registerPublish(c, c.besluittypen);
    registerPublish(c, c.informatieobjecttypen, { after: (url) => markLinksPublished(c, url) });

    await ensureIndexes(c);
  },
};

async function ensureIndexes(c: Catalogi): Promise<void> {
  const types = (r: Resource<Doc>, extra: { key: Record<string, 1 | -1> }[] = []) =>
    r.store.ensureIndexes([
      { key: { catalogus: 1, omschrijving: 1, beginGeldigheid: -1 } },
      { key: { catalogus: 1, concept: 1, beginGeldigheid: 1 } },
      { key: { concept: 1, _created: 1, _id: 1 } },
      ...extra,
    ]);
  await c.catalogussen.store.ensureIndexes([{ key: { domein: 1 } }, { key: { rsin: 1 } }]);
  await types(c.zaaktypen, [
    { key: { catalogus: 1, identificatie: 1, beginGeldigheid: -1 } },
    { key: { catalogus: 1, besluittypen: 1 } },
    { key: { trefwoorden: 1 } },
    { key: { identificatie: 1, beginGeldigheid: 1, _id: 1 } },
  ]);
  await types(c.besluittypen, [{ key: { catalogus: 1, informatieobjecttypen: 1 } }]);
  await types(c.informatieobjecttypen);
  const parts = [c.statustypen, c.roltypen, c.eigenschappen, c.resultaattypen, c.zaakobjecttypen, c.ziot];
  for (const part of parts) {
    await part.store.ensureIndexes([
      { key: { zaaktype: 1, _concept: 1 } },
      { key: { zaaktypeIdentificatie: 1 } },
      { key: { _concept: 1, beginGeldigheid: 1 } },
    ]);
  }
  await c.statustypen.store.ensureIndexes([{ key: { zaaktype: 1, volgnummer: -1 } }]);
  await c.roltypen.store.ensureIndexes([{ key: { omschrijvingGeneriek: 1 } }]);
  await c.resultaattypen.store.ensureIndexes([{ key: { catalogus: 1, besluittypen: 1 } }]);
  await c.zaakobjecttypen.store.ensureIndexes([
    { key: { catalogus: 1, objecttype: 1 } },
    { key: { relatieOmschrijving: 1 } },
    { key: { resultaattypen: 1 } },
    { key: { statustypen: 1 } },
  ]);
  await c.ziot.store.ensureIndexes([{ key: { _concept: 1, _iotConcept: 1 } }, { key: { informatieobjecttype: 1 } }, { key: { _iotOmschrijving: 1 } }, { key: { zaaktype: 1, volgnummer: 1, _id: 1 } }]);
}
