import type { Document, Filter } from 'mongodb';
import { Resource, type WriteContext } from '../../common/resource';
import type { Stored } from '../../common/store';
import { parseOrThrow } from '../../common/validation';
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
import { urlsWhere } from './relations';
import {
  InformatieObjectType,
  InformatieObjectTypeInput,
  InformatieObjectTypeQuery,
  type BesluitTypeDoc,
  type InformatieObjectTypeDoc,
  type ZaakTypeDoc,
} from './schemas';
import type { JsonObject } from '../../common/schema-parts';

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
  return new Resource<InformatieObjectTypeDoc>(c.api, {
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
    render: async (doc, url) => {
      const links = await c.ziot.store.find({ informatieobjecttype: url });
      return {
        zaaktypen: [...new Set(links.map((l) => l.zaaktype))],
        besluittypen: doc.omschrijving ? await urlsWhere(c.besluittypen, { catalogus: doc.catalogus, informatieobjecttypen: doc.omschrijving }) : [],
      };
    },
  });
}

async function prepare(
  c: Catalogi,
  data: JsonObject,
  ctx: WriteContext,
  current?: Stored<InformatieObjectTypeDoc>,
): Promise<InformatieObjectTypeDoc> {
  const input = parseOrThrow(InformatieObjectTypeInput, data);
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
