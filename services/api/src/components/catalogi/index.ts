import type { Document } from 'mongodb';
import type { ComponentDef } from '../../common/platform/component';
import type { Resource } from '../../common/platform/resource';
import { registerBesluittypen } from './besluittypen';
import { registerCatalogussen } from './catalogussen';
import type { Catalogi } from './context';
import { views } from './expand';
import { registerInformatieobjecttypen } from './informatieobjecttypen';
import { registerOnderdelen } from './onderdelen-defs';
import { markLinksPublished, markPartsPublished, registerPublish, zaaktypePublishCheck } from './publish';
import { CatalogusUitwisseling } from './uitwisseling';
import { VERSIONS, V131 } from './schemas';
import { SelectielijstClient } from './selectielijst';

import { informatieobjecttypenOn, registerZaaktypen } from './zaaktypen';
import { registerZiot } from './zaaktype-informatieobjecttypen';

/**
 * Catalogi API (ZTC): the types that Zaken, Documenten and Besluiten refer to, with the 1.3 history model. 1.3.1, and
 * 1.3.3 on request (`Api-Version: 1.3.3`): the names of related types beside their URLs, `expand`, catalogus updates.
 */
export const catalogi: ComponentDef = {
  name: 'catalogi',
  code: 'ztc',
  operationIds: 'retrieve',
  declaresContentType: true,
  heads: true,
  title: 'Catalogi API',
  version: V131,
  versions: VERSIONS,
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
    c.informatieobjecttypenOn = (zaaktypeUrl, datum) => informatieobjecttypenOn(c, zaaktypeUrl, datum);
    c.views = (urls) => views(c, urls);
    api.deps.components.catalogi = c;

    c.publishers = {
      zaaktypen: registerPublish(c, c.zaaktypen, {
        check: (doc, url) => zaaktypePublishCheck(c, doc, url),
        after: (url) => markPartsPublished(c, url),
      }),
      besluittypen: registerPublish(c, c.besluittypen),
      informatieobjecttypen: registerPublish(c, c.informatieobjecttypen, { after: (url) => markLinksPublished(c, url) }),
    };
    c.uitwisseling = new CatalogusUitwisseling(c);

    await ensureIndexes(c);
  },
};

type Key = Record<string, 1 | -1>;

/**
 * An index for every query shape the Catalogi send, by MongoDB's rule (the query-index check of `npm test` proves it,
 * docs/development.md): the equality fields of a filter combination, then the sort (creation order, or the list's
 * own), then the ranges (datumGeldigheid: beginGeldigheid, eindeGeldigheid). A count has no sort, so a filter with
 * datumGeldigheid needs an (equality, begin, einde) index for its count too. `$in` with a sort is a range.
 */
async function ensureIndexes(c: Catalogi): Promise<void> {
  const created: Key = { _created: 1, _id: 1 };
  const geldig: Key = { beginGeldigheid: 1, eindeGeldigheid: 1 };
  const ensure = (r: Resource<Document>, keys: Key[]) => r.store.ensureIndexes(keys.map((key) => ({ key })));

  await ensure(c.catalogussen, [
    { domein: 1, ...created, rsin: 1 }, // domein, and with rsin__in
    { domein: 1, rsin: 1, ...created }, // one organisation's domein (the registration import looks it up), and its count
    { rsin: 1, ...created },
    { ...created, domein: 1 }, // domein__in
    { ...created, rsin: 1 }, // rsin__in
  ]);

  // The zaaktypen list is ordered by identificatie and version; datumGeldigheid adds eindeGeldigheid after it.
  const zaaktypenOrder: Key = { identificatie: 1, beginGeldigheid: 1, _id: 1, eindeGeldigheid: 1 };
  await ensure(c.zaaktypen, [
    zaaktypenOrder, // status=alles, identificatie
    { concept: 1, ...zaaktypenOrder }, // the status filter (default definitief), with identificatie
    { catalogus: 1, ...zaaktypenOrder }, // catalogus, with identificatie; the versions of some identificaties
    { catalogus: 1, concept: 1, ...zaaktypenOrder },
    { trefwoorden: 1, concept: 1, ...zaaktypenOrder },
    { catalogus: 1, trefwoorden: 1, ...zaaktypenOrder },
    { catalogus: 1, ...geldig }, // counts with datumGeldigheid
    { catalogus: 1, identificatie: 1, ...geldig },
    { catalogus: 1, ...created }, // a catalogus' zaaktypen
    { catalogus: 1, besluittypen: 1, ...created }, // the zaaktypen of a besluittype
  ]);

  // besluittypen and informatieobjecttypen have the same list filters.
  const types: Key[] = [
    { concept: 1, ...created },
    { catalogus: 1, ...created, ...geldig },
    { catalogus: 1, ...geldig },
    { catalogus: 1, concept: 1, ...created, ...geldig },
    { catalogus: 1, concept: 1, ...geldig },
    { catalogus: 1, omschrijving: 1, ...created, ...geldig }, // also every version of some omschrijvingen
    { catalogus: 1, omschrijving: 1, ...geldig },
    { catalogus: 1, omschrijving: 1, concept: 1, ...created },
    { omschrijving: 1, concept: 1, ...created },
  ];
  await ensure(c.besluittypen, [
    ...types,
    { catalogus: 1, ...created, omschrijving: 1 }, // the besluittypen of a zaaktype (omschrijving $in)
    { catalogus: 1, informatieobjecttypen: 1, ...created }, // the besluittypen of an informatieobjecttype
  ]);
  await ensure(c.informatieobjecttypen, types);

  // The parts of a zaaktype: by zaaktype (also the batched loads of a zaaktypen page) or its identificatie.
  const parts: Key[] = [
    { zaaktype: 1, ...created, ...geldig },
    { zaaktype: 1, ...geldig },
    { zaaktypeIdentificatie: 1, ...created },
  ];
  const withStatus: Key[] = [
    { _concept: 1, ...created },
    { zaaktype: 1, _concept: 1, ...created },
    { zaaktypeIdentificatie: 1, _concept: 1, ...created },
  ];
  await ensure(c.statustypen, [...parts, ...withStatus, { zaaktype: 1, volgnummer: 1, _id: 1 }]);
  await ensure(c.roltypen, [...parts, ...withStatus, { zaaktype: 1, omschrijvingGeneriek: 1, ...created }]);
  await ensure(c.eigenschappen, [...parts, ...withStatus]);
  await ensure(c.resultaattypen, [...parts, ...withStatus, { catalogus: 1, besluittypen: 1, ...created }]);
  await ensure(c.zaakobjecttypen, [
    ...parts,
    { zaaktype: 1, anderObjecttype: 1, ...created },
    { zaaktype: 1, anderObjecttype: 1, relatieOmschrijving: 1, ...created },
    { zaaktype: 1, catalogus: 1, beginGeldigheid: 1, ...created },
    { zaaktype: 1, objecttype: 1, ...created },
    { objecttype: 1, ...created },
    { catalogus: 1, ...created },
    { relatieOmschrijving: 1, ...created },
    { resultaattypen: 1, ...created }, // the zaakobjecttypen of a resultaattype
    { statustypen: 1, ...created }, // the zaakobjecttype of a statustype
  ]);

  // zaaktype-informatieobjecttypen are listed by zaaktype and volgnummer; status: _concept and _iotConcept.
  const ziotOrder: Key = { zaaktype: 1, volgnummer: 1, _id: 1 };
  await ensure(c.ziot, [
    ziotOrder,
    { zaaktype: 1, ...created },
    { informatieobjecttype: 1, ...created },
    { _concept: 1, _iotConcept: 1, ...ziotOrder },
    { zaaktype: 1, _concept: 1, _iotConcept: 1, volgnummer: 1, _id: 1 },
    { zaaktype: 1, _concept: 1, volgnummer: 1, _id: 1 }, // status=concept: _concept or _iotConcept
    { zaaktype: 1, _iotConcept: 1, volgnummer: 1, _id: 1 },
    { _iotOmschrijving: 1, _concept: 1, _iotConcept: 1, ...ziotOrder },
    { informatieobjecttype: 1, _concept: 1, _iotConcept: 1, ...ziotOrder },
    { zaaktype: 1, _iotOmschrijving: 1, volgnummer: 1, _id: 1 },
    { zaaktype: 1, informatieobjecttype: 1, richting: 1, volgnummer: 1, _id: 1 },
    { zaaktype: 1, richting: 1, volgnummer: 1, _id: 1 },
  ]);
}
