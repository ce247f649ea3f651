import type { Document, Filter } from 'mongodb';
import { z } from 'zod';
import { ZgwError } from '../../common/http/errors';
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
import { byNames, distinct, namesFromInput, urlsOn, urlsWhere, valuesWhere } from './relations';
import {
  BesluitType,
  BesluitType133,
  BesluitTypeInput,
  BesluitTypeQuery,
  date,
  type BesluitTypeDoc,
  type InformatieObjectTypeDoc,
  type BesluitTypeIn,
} from './schemas';

const DEFAULTS = {
  omschrijving: '',
  omschrijvingGeneriek: '',
  besluitcategorie: '',
  reactietermijn: null,
  publicatietekst: '',
  publicatietermijn: null,
  toelichting: '',
  eindeGeldigheid: null,
  beginObject: null,
  eindeObject: null,
};

/** The informatieobjecttypen a besluittype refers to (by omschrijving), every version in its catalogus. */
export function informatieobjecttypenOf(c: Catalogi, besluittype: BesluitTypeDoc): Promise<Stored<InformatieObjectTypeDoc>[]> {
  return byNames(c.informatieobjecttypen, 'omschrijving', besluittype.catalogus, besluittype.informatieobjecttypen);
}

/** Not in the 1.3.1 detail parameters, but sent by clients: the informatieobjecttypen shown on that day. */
const BesluitTypeReadQuery = z.object({ datumGeldigheid: date.optional() });

export function registerBesluittypen(c: Catalogi): Resource<BesluitTypeDoc> {
  return new Resource<BesluitTypeDoc, BesluitTypeIn, z.output<typeof BesluitTypeQuery>, z.output<typeof BesluitTypeReadQuery>>(c.api, {
    collection: 'besluittypen',
    resource: 'besluittype',
    schema: BesluitType,
    input: BesluitTypeInput,
    query: BesluitTypeQuery,
    scopes: { read: READ, create: WRITE, update: WRITE_OR_FORCED, destroy: DELETE_OR_FORCED },
    kanaal: 'besluittypen',
    kenmerken: (doc) => ({ catalogus: doc.catalogus }),
    filter: async (q) => {
      const f: Filter<Document> = {};
      if (q.catalogus) f.catalogus = q.catalogus;
      if (q.omschrijving) f.omschrijving = q.omschrijving;
      const parts: Filter<Document>[] = [f, statusFilter(q.status), q.datumGeldigheid ? geldigOp(String(q.datumGeldigheid)) : {}];
      if (q.zaaktypen) {
        const zt = await c.zaaktypen.byUrl(String(q.zaaktypen));
        parts.push(zt ? { catalogus: zt.catalogus, omschrijving: { $in: zt.besluittypen } } : { _id: { $in: [] } });
      }
      if (q.informatieobjecttypen) {
        const iot = await c.informatieobjecttypen.byUrl(String(q.informatieobjecttypen));
        parts.push(iot ? { catalogus: iot.catalogus, informatieobjecttypen: iot.omschrijving } : { _id: { $in: [] } });
      }
      return and(...parts);
    },
    // Not in the 1.3.1 detail parameters, but sent by clients (and VNG's historiemodel tests): it picks the
    // informatieobjecttypen shown, as on the list. It does not hide the besluittype itself.
    readQuery: BesluitTypeReadQuery,
    // Catalogi 1.3.1 has a besluittype's zaaktypen read-only and no datumGeldigheid on its detail.
    declared: { input: BesluitTypeInput.omit({ zaaktypen: true }), readQuery: z.object({}) },
    // 1.3.3 has no datumGeldigheid on the detail either; its create answer also names the informatieobjecttypen as 1.3.2 did.
    ...served133(c, 'BesluitType', {
      schema: BesluitType133,
      query: BesluitTypeQuery,
      readQuery: BesluitTypeReadQuery,
      declared: { readQuery: z.object({}), created: BesluitType133.extend({ informatieobjecttypeOmschrijving: z.array(z.string()) }) },
    }),
    prepare: (data, ctx, current) => prepare(c, data, ctx, current),
    beforeDestroy: async (current, ctx) => {
      if (mayForceDelete(ctx.caller)) return;
      if (current.concept === false) throw nonField('non-concept-object', 'Een gepubliceerd besluittype kan niet verwijderd worden.');
      if ((await informatieobjecttypenOf(c, current)).some((d) => d.concept === false)) {
        throw nonField('non-concept-relation', 'Het besluittype is gerelateerd aan een gepubliceerd informatieobjecttype.');
      }
    },
    render: async (doc, _url, query, req) => {
      const omschrijving = doc.omschrijving ?? '';
      const zaaktypen = { catalogus: doc.catalogus, besluittypen: omschrijving };
      const resultaattypen = omschrijving ? await c.resultaattypen.store.find({ catalogus: doc.catalogus, besluittypen: omschrijving }) : [];
      return {
        informatieobjecttypen: await urlsOn(
          c.informatieobjecttypen,
          'omschrijving',
          doc.catalogus,
          doc.informatieobjecttypen,
          query?.datumGeldigheid as string | undefined,
        ),
        zaaktypen: omschrijving ? await urlsWhere(c.zaaktypen, zaaktypen) : [],
        resultaattypen: resultaattypen.map((r) => c.resultaattypen.url(r._id)),
        resultaattypenOmschrijving: resultaattypen.map((r) => r.omschrijving),
        // the omschrijvingen of its informatieobjecttypen (what the standard calls "de aard van de informatieobjecten")
        vastgelegdIn: distinct(doc.informatieobjecttypen ?? []),
        ...(in133(c, req) && {
          informatieobjecttypeOmschrijvingen: distinct(doc.informatieobjecttypen ?? []),
          informatieobjecttypeOmschrijving: distinct(doc.informatieobjecttypen ?? []),
          zaaktypeIdentificaties: omschrijving ? await valuesWhere(c.zaaktypen, zaaktypen, 'identificatie') : [],
        }),
      };
    },
  });
}

/** Whether one of the given zaaktype URLs is a zaaktype of another catalogus (the relation itself is read-only). */
async function anyInOtherCatalogus(c: Catalogi, urls: string[], catalogus: string): Promise<boolean> {
  for (const url of urls) {
    const zt = await c.zaaktypen.byUrl(url);
    if (zt && zt.catalogus !== catalogus) return true;
  }
  return false;
}

async function prepare(c: Catalogi, input: BesluitTypeIn, ctx: WriteContext, current?: Stored<BesluitTypeDoc>): Promise<BesluitTypeDoc> {
  await mustResolve(c.catalogussen, 'catalogus', input.catalogus);
  const iots = await namesFromInput(c.informatieobjecttypen, 'informatieobjecttypen', 'omschrijving', input.catalogus, input.informatieobjecttypen);
  if (iots.errors.length) throw ZgwError.validation(iots.errors);
  const { zaaktypen, ...fields } = input;
  const foreignZaaktype = await anyInOtherCatalogus(c, zaaktypen ?? [], input.catalogus);
  const doc: BesluitTypeDoc = {
    ...withDefaults({ ...fields, informatieobjecttypen: iots.names }, DEFAULTS),
    concept: current ? current.concept !== false : true,
  };
  if (!mayForceWrite(ctx.caller)) {
    if (current && !onlyEndsGeldigheid(current, doc)) {
      if (current.concept === false) throw nonField('non-concept-object', 'Een gepubliceerd besluittype kan alleen een eindeGeldigheid krijgen.');
      if ((await informatieobjecttypenOf(c, current)).some((d) => d.concept === false)) {
        throw nonField('non-concept-relation', 'Het besluittype is gerelateerd aan een gepubliceerd informatieobjecttype.');
      }
    }
    if (iots.byUrl.some((d) => d.concept === false)) {
      throw nonField('non-concept-relation', 'Een concept besluittype kan niet aan een gepubliceerd informatieobjecttype gerelateerd worden.');
    }
  }
  if (iots.foreignCatalogus || foreignZaaktype) {
    throw nonField(
      'relations-incorrect-catalogus',
      'Gerelateerde informatieobjecttypen en zaaktypen moeten tot de catalogus van het besluittype behoren.',
    );
  }
  return doc;
}
