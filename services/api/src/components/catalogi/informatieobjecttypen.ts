import type { Document, Filter } from 'mongodb';
import { z } from 'zod';
import { Resource, type WriteContext } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import {
  DELETE_OR_FORCED,
  READ,
  WRITE,
  WRITE_OR_FORCED,
  and,
  geldigOp,
  mayForceDelete,
  mayForceWrite,
  mustResolve,
  nonField,
  onlyEndsGeldigheid,
  statusFilter,
  withDefaults,
  type Catalogi,
} from './context';
import { in133, served133 } from './expand';
import { distinct, urlsWhere, valuesWhere } from './relations';
import {
  InformatieObjectType,
  InformatieObjectType133,
  InformatieObjectTypeInput,
  InformatieObjectTypeQuery,
  type BesluitTypeDoc,
  type InformatieObjectTypeDoc,
  type ZaakTypeDoc,
  type InformatieObjectTypeIn,
} from './schemas';

const DEFAULTS = { eindeGeldigheid: null, beginObject: null, eindeObject: null, trefwoord: [], omschrijvingGeneriek: null };

/** Besluittypen of the same catalogus that refer to this informatieobjecttype by its omschrijving. */
function besluittypenOf(c: Catalogi, iot: InformatieObjectTypeDoc): Promise<Stored<BesluitTypeDoc>[]> {
  return c.besluittypen.store.find({ catalogus: iot.catalogus, informatieobjecttypen: iot.omschrijving });
}

async function zaaktypenOf(c: Catalogi, url: string): Promise<Stored<ZaakTypeDoc>[]> {
  const links = await c.ziot.store.find({ informatieobjecttype: url });
  const out: Stored<ZaakTypeDoc>[] = [];
  for (const z of new Set(links.map((l) => l.zaaktype))) {
    const doc = await c.zaaktypen.byUrl(z);
    if (doc) out.push(doc);
  }
  return out;
}

export function registerInformatieobjecttypen(c: Catalogi): Resource<InformatieObjectTypeDoc> {
  return new Resource<InformatieObjectTypeDoc, InformatieObjectTypeIn, z.output<typeof InformatieObjectTypeQuery>>(c.api, {
    collection: 'informatieobjecttypen',
    resource: 'informatieobjecttype',
    schema: InformatieObjectType,
    input: InformatieObjectTypeInput,
    query: InformatieObjectTypeQuery,
    scopes: { read: READ, create: WRITE, update: WRITE_OR_FORCED, destroy: DELETE_OR_FORCED },
    kanaal: 'informatieobjecttypen',
    kenmerken: (doc) => ({ catalogus: doc.catalogus }),
    filter: (q) => {
      const f: Filter<Document> = {};
      if (q.catalogus) f.catalogus = q.catalogus;
      if (q.omschrijving) f.omschrijving = q.omschrijving;
      return and(f, statusFilter(q.status), q.datumGeldigheid ? geldigOp(String(q.datumGeldigheid)) : {});
    },
    // The 1.3.3 file asks the zaaktypeIdentificaties in the body; they are what the zaaktype-informatieobjecttypen make.
    ...served133(c, 'InformatieObjectType', {
      schema: InformatieObjectType133,
      query: InformatieObjectTypeQuery,
      declared: { input: InformatieObjectTypeInput.extend({ zaaktypeIdentificaties: z.array(z.string()) }) },
    }),
    prepare: (data, ctx, current) => prepare(c, data, ctx, current),
    // Zaaktype-informatieobjecttypen name their informatieobjecttype by omschrijving: the links made with this
    // version follow a new omschrijving.
    afterWrite: async (stored, ctx, previous) => {
      if (previous && previous.omschrijving !== stored.omschrijving) {
        await c.ziot.store.raw.updateMany({ informatieobjecttype: ctx.url }, { $set: { _iotOmschrijving: stored.omschrijving } });
      }
    },
    beforeDestroy: async (current, ctx) => {
      if (mayForceDelete(ctx.caller)) return;
      if (current.concept === false) throw nonField('non-concept-object', 'Een gepubliceerd informatieobjecttype kan niet verwijderd worden.');
      const related = [...(await besluittypenOf(c, current)), ...(await zaaktypenOf(c, ctx.url))];
      if (related.some((d) => d.concept === false)) {
        throw nonField('non-concept-relation', 'Het informatieobjecttype heeft relaties met gepubliceerde typen.');
      }
    },
    // Its links to zaaktypen have no meaning without it.
    afterDestroy: async (_current, ctx) => {
      await c.ziot.store.raw.deleteMany({ informatieobjecttype: ctx.url });
    },
    render: async (doc, url, _query, req) => {
      const links = await c.ziot.store.find({ informatieobjecttype: url });
      const besluittypen = { catalogus: doc.catalogus, informatieobjecttypen: doc.omschrijving };
      return {
        zaaktypen: [...new Set(links.map((l) => l.zaaktype))],
        besluittypen: doc.omschrijving ? await urlsWhere(c.besluittypen, besluittypen) : [],
        ...(in133(c, req) && {
          besluittypeOmschrijving: doc.omschrijving ? await valuesWhere(c.besluittypen, besluittypen, 'omschrijving') : [],
          zaaktypeIdentificaties: distinct(links.map((l) => l.zaaktypeIdentificatie)),
        }),
      };
    },
  });
}

async function prepare(
  c: Catalogi,
  input: InformatieObjectTypeIn,
  ctx: WriteContext,
  current?: Stored<InformatieObjectTypeDoc>,
): Promise<InformatieObjectTypeDoc> {
  await mustResolve(c.catalogussen, 'catalogus', input.catalogus);
  const doc: InformatieObjectTypeDoc = { ...withDefaults({ ...input }, DEFAULTS), concept: current ? current.concept !== false : true };
  if (current && !mayForceWrite(ctx.caller) && !onlyEndsGeldigheid(current, doc)) {
    if (current.concept === false)
      throw nonField('non-concept-object', 'Een gepubliceerd informatieobjecttype kan alleen een eindeGeldigheid krijgen.');
    if ((await besluittypenOf(c, current)).some((b) => b.concept === false)) {
      throw nonField('non-concept-relation', 'Het informatieobjecttype is gerelateerd aan een gepubliceerd besluittype.');
    }
  }
  return doc;
}
