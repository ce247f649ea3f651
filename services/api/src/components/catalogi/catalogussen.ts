import type { z } from 'zod';
import type { Document, Filter } from 'mongodb';
import { Resource } from '../../common/platform/resource';
import { READ, WRITE, withDefaults, type Catalogi } from './context';
import { in133, served133 } from './expand';
import { urlsWhere, valuesWhere } from './relations';
import { Catalogus, Catalogus133, CatalogusInput, CatalogusQuery, V133, type CatalogusDoc, type CatalogusIn } from './schemas';

const DEFAULTS = { contactpersoonBeheerTelefoonnummer: '', contactpersoonBeheerEmailadres: '', naam: null, versie: null, begindatumVersie: null };

const list = (v: unknown) => String(v).split(',').filter(Boolean);

/** Catalogussen: create and read in 1.3.1; 1.3.3 updates them too (PUT, PATCH) and names their types. */
export function registerCatalogussen(c: Catalogi): Resource<CatalogusDoc> {
  return new Resource<CatalogusDoc, CatalogusIn, z.output<typeof CatalogusQuery>>(c.api, {
    collection: 'catalogussen',
    resource: 'catalogus',
    schema: Catalogus,
    input: CatalogusInput,
    query: CatalogusQuery,
    operations: ['list', 'create', 'read', 'update', 'partial_update'],
    since: { update: V133, partial_update: V133 },
    scopes: { read: READ, create: WRITE, update: WRITE, destroy: WRITE },
    ...served133(c, 'Catalogus', { schema: Catalogus133, query: CatalogusQuery, input: CatalogusInput.meta({ id: 'CatalogusUpdate' }) }),
    filter: (q) => {
      const f: Filter<Document> = {};
      const domein: Filter<Document>[] = [];
      const rsin: Filter<Document>[] = [];
      if (q.domein) domein.push({ domein: q.domein });
      if (q.domein__in) domein.push({ domein: { $in: list(q.domein__in) } });
      if (q.rsin) rsin.push({ rsin: q.rsin });
      if (q.rsin__in) rsin.push({ rsin: { $in: list(q.rsin__in) } });
      const parts = [...domein, ...rsin];
      return parts.length ? { $and: parts } : f;
    },
    prepare: async (input) => withDefaults(input, DEFAULTS),
    render: async (_doc, url, _query, req) => ({
      zaaktypen: await urlsWhere(c.zaaktypen, { catalogus: url }),
      besluittypen: await urlsWhere(c.besluittypen, { catalogus: url }),
      informatieobjecttypen: await urlsWhere(c.informatieobjecttypen, { catalogus: url }),
      ...(in133(c, req) && {
        besluittypeOmschrijving: await valuesWhere(c.besluittypen, { catalogus: url }, 'omschrijving'),
        informatieobjecttypeOmschrijving: await valuesWhere(c.informatieobjecttypen, { catalogus: url }, 'omschrijving'),
      }),
    }),
  });
}
