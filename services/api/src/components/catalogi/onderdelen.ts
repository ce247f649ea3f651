import { fieldOf } from '../../common/resources/expand';
import type { Document, Filter } from 'mongodb';
import type { z } from 'zod';
import { ZgwError, type InvalidParam } from '../../common/http/errors';
import { Resource, type ResourceDef, type ResourceVariant, type WriteContext } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import {
  DELETE_OR_FORCED,
  READ,
  WRITE_OR_FORCED,
  and,
  geldigOp,
  mayForceDelete,
  mayForceWrite,
  mustResolve,
  nonField,
  resolveLocal,
  statusFilter,
  withDefaults,
  type Catalogi,
} from './context';
import { served133 } from './expand';
import { type CatalogiDoc, type EXPANDABLE, type OnderdeelDoc, type ZaakTypeDoc } from './schemas';

/**
 * The parts of a zaaktype (statustypen, roltypen, eigenschappen, resultaattypen, zaakobjecttypen): they belong to
 * one zaaktype, may only change while that zaaktype is a concept (or with `catalogi.geforceerd-schrijven`), and carry
 * the zaaktype's catalogus, identificatie and concept state (`_concept`) for their list filters.
 */
/** The list filters every part of a zaaktype has (1.3.3 knows some in both spellings): what its query gives at least. */
export type OnderdeelFilters = {
  zaaktype?: string;
  zaaktypeIdentificatie?: string;
  zaaktype_identificatie?: string;
  status?: string;
  datumGeldigheid?: string;
  datum_geldigheid?: string;
};

export interface OnderdeelDef<D extends OnderdeelDoc, Q extends OnderdeelFilters = OnderdeelFilters> {
  collection: string;
  resource: string;
  schema: z.ZodType;
  input: z.ZodObject;
  query: z.ZodObject & z.ZodType<Q>;
  declared?: ResourceDef<D>['declared'];
  /** Its name in the 1.3.3 file (`StatusType`: `StatusTypeExpanded`, ...) and what differs there. */
  in133: { name: keyof typeof EXPANDABLE } & Omit<ResourceVariant, 'query' | 'readQuery'>;
  defaults: Partial<D>;
  /** Extra list filters beyond zaaktype, zaaktypeIdentificatie, status and datumGeldigheid. */
  filter?(q: Q): Filter<Document>;
  /** Whether the type takes its catalogus from its zaaktype (all but zaakobjecttypen, where it is an input field). */
  catalogusFromZaaktype?: boolean;
  /** Whether the `status` filter applies. */
  status?: boolean;
  /** URL fields (single or list) that must point at an existing object of another Catalogi resource. */
  links?: { field: string; target: LinkTarget }[];
  /** Rules of this type on top of the shared ones; returns the document to store. */
  rules?: (doc: D, zaaktype: Stored<ZaakTypeDoc>, current: Stored<D> | undefined) => Promise<D>;
  render?: ResourceDef<D, unknown, Q>['render'];
}

type LinkTarget = 'statustypen' | 'eigenschappen' | 'resultaattypen' | 'informatieobjecttypen';

/** `bad-url` / `does_not_exist` for every linked URL that is not one of our objects. */
async function checkLinks<D extends OnderdeelDoc>(c: Catalogi, def: OnderdeelDef<D>, input: object): Promise<InvalidParam[]> {
  const errors: InvalidParam[] = [];
  for (const { field, target } of def.links ?? []) {
    const value = fieldOf(input, field);
    const list = Array.isArray(value) ? value.map((v, i) => [`${field}.${i}`, v] as const) : value ? [[field, value] as const] : [];
    for (const [name, url] of list) {
      const targets: Resource<CatalogiDoc> = c[target];
      const r = await resolveLocal(targets, name, String(url));
      if (r.error) errors.push(r.error);
    }
  }
  return errors;
}

export async function zaaktypeOfPart(c: Catalogi, part: { zaaktype?: unknown }): Promise<Stored<ZaakTypeDoc> | undefined> {
  return typeof part.zaaktype === 'string' ? c.zaaktypen.byUrl(part.zaaktype) : undefined;
}

export function assertZaaktypeConcept(zaaktype: ZaakTypeDoc | undefined, forced: boolean): void {
  if (zaaktype && zaaktype.concept === false && !forced) {
    throw nonField('non-concept-zaaktype', 'Het zaaktype is gepubliceerd; onderdelen ervan kunnen niet meer gewijzigd worden.');
  }
}

export function registerOnderdeel<D extends OnderdeelDoc, Q extends OnderdeelFilters = OnderdeelFilters>(
  c: Catalogi,
  def: OnderdeelDef<D, Q>,
): Resource<D> {
  return new Resource<D, z.output<z.ZodObject>, Q>(c.api, {
    collection: def.collection,
    resource: def.resource,
    schema: def.schema,
    input: def.input,
    query: def.query,
    declared: def.declared,
    ...served133<D, Q>(c, def.in133.name, { ...def.in133, query: def.query }),
    scopes: { read: READ, create: WRITE_OR_FORCED, update: WRITE_OR_FORCED, destroy: DELETE_OR_FORCED },
    filter: (q) => {
      const f: Filter<Document> = {};
      if (q.zaaktype) f.zaaktype = q.zaaktype;
      const ident = q.zaaktypeIdentificatie ?? q.zaaktype_identificatie;
      if (ident) f.zaaktypeIdentificatie = ident;
      const datum = q.datumGeldigheid ?? q.datum_geldigheid;
      return and(f, def.status === false ? {} : statusFilter(q.status, '_concept'), datum ? geldigOp(datum) : {}, def.filter?.(q) ?? {});
    },
    // (`data` parsed with the version's input: def.input, in 1.3.3 def.in133.input where it has one)
    prepare: async (data, ctx: WriteContext, current) => {
      const input = data as typeof data & { zaaktype: string; catalogus?: string };
      const zaaktype = await mustResolve(c.zaaktypen, 'zaaktype', input.zaaktype);
      const forced = mayForceWrite(ctx.caller);
      assertZaaktypeConcept(zaaktype, forced);
      if (current && current.zaaktype !== input.zaaktype) assertZaaktypeConcept(await zaaktypeOfPart(c, current), forced);
      const linkErrors = await checkLinks(c, def, input);
      if (linkErrors.length) throw ZgwError.validation(linkErrors);
      if (def.catalogusFromZaaktype === false && input.catalogus !== zaaktype.catalogus) {
        await mustResolve(c.catalogussen, 'catalogus', String(input.catalogus));
        throw nonField('relations-incorrect-catalogus', 'Het zaaktype hoort bij een andere catalogus.');
      }
      let doc = {
        ...withDefaults(input, def.defaults),
        catalogus: def.catalogusFromZaaktype === false ? input.catalogus : zaaktype.catalogus,
        zaaktypeIdentificatie: zaaktype.identificatie,
        _concept: zaaktype.concept !== false,
      } as D;
      // Without a beginGeldigheid of its own (1.3.3 allows that), a type is valid from its zaaktype's.
      const geldig = doc as D & CatalogiDoc;
      if (geldig.beginGeldigheid === undefined) geldig.beginGeldigheid = zaaktype.beginGeldigheid;
      if (def.rules) doc = await def.rules(doc, zaaktype, current);
      return doc;
    },
    beforeDestroy: async (current, ctx) => {
      assertZaaktypeConcept(await zaaktypeOfPart(c, current), mayForceDelete(ctx.caller));
    },
    render: def.render,
  });
}
