import type { Document, Filter } from 'mongodb';
import type { z as zod } from 'zod';
import { ZgwError } from '../../common/errors';
import { Resource, type Operation, type ResourceDef, type WriteContext } from '../../common/resource';
import { pull, type Stored } from '../../common/store';
import { parseOrThrow } from '../../common/validation';
import {
  LEZEN,
  PART_AUTH_FIELDS,
  authBuckets,
  authFilter,
  sameFilter,
  mayOnZaak,
  mustBeUnchanged,
  mustMayChangeClosed,
  mustMayOnZaak,
  partFacts,
  withDefaults,
  zaakOfPart,
  type Zaken,
} from './context';
import type { Doc } from './schemas';

/**
 * A part of a zaak (status, resultaat, rol, zaakobject, zaakinformatieobject, klantcontact, zaakcontactmoment,
 * zaakverzoek): it belongs to one zaak for good, is authorised by that zaak's zaaktype and vertrouwelijkheid (copied
 * onto the part so lists filter inside the query), changes a closed zaak only with zaken.geforceerd-bijwerken, and
 * notifies on kanaal `zaken` with the zaak as hoofdObject.
 */
export interface PartDef {
  collection: string;
  resource: string;
  schema: zod.ZodType;
  input: zod.ZodObject;
  query: zod.ZodObject;
  scopes: ResourceDef<Doc>['scopes'];
  operations: Operation[];
  plainList?: boolean;
  defaults?: Doc;
  /** The field on the zaak that lists this part's uuids (kept in step on create and delete). */
  link?: string;
  /** Fields that may not change after creation besides `zaak`. */
  immutable?: string[];
  /** Whether a closed zaak needs zaken.geforceerd-bijwerken for this part (statussen have their own rule). */
  closedNeedsForce?: boolean;
  /** List filters besides `zaak`, as exact matches on the stored field of the same name. */
  exact?: string[];
  filter?: (q: Doc) => Filter<Document> | Promise<Filter<Document>>;
  /** Rules of this part; returns the document to store. */
  rules?: (doc: Doc, zaak: Stored<Doc>, ctx: WriteContext, current?: Stored<Doc>) => Promise<Doc>;
  afterWrite?: (stored: Stored<Doc>, zaak: Stored<Doc>, ctx: WriteContext, previous?: Stored<Doc>) => Promise<void>;
  beforeDestroy?: (current: Stored<Doc>, zaak: Stored<Doc> | undefined, ctx: WriteContext) => Promise<void>;
  afterDestroy?: (current: Stored<Doc>, ctx: WriteContext) => Promise<void>;
  render?: ResourceDef<Doc>['render'];
}

/** The zaak a part's `zaak` field points at: `bad-url` when it is no zaak of this API. */
export async function zaakOf(z: Zaken, url: string, name = 'zaak'): Promise<Stored<Doc>> {
  const zaak = await z.zaken.byUrl(url);
  if (!zaak) throw ZgwError.field(name, 'bad-url', `${url} is geen zaak van deze Zaken API.`);
  return zaak;
}

export function registerPart(z: Zaken, def: PartDef): Resource<Doc> {
  const zaakOfStored = async (part: Doc) => z.zaken.byUrl(String(part.zaak));
  const resource: Resource<Doc> = new Resource<Doc>(z.api, {
    collection: def.collection,
    resource: def.resource,
    schema: def.schema,
    input: def.input,
    query: def.query,
    scopes: def.scopes,
    operations: def.operations,
    plainList: def.plainList,
    kanaal: 'zaken',
    hoofdObject: (doc) => String(doc.zaak),
    kenmerken: (doc) => {
      const facts = zaakOfPart(doc);
      return {
        bronorganisatie: String(doc._bronorganisatie ?? ''),
        zaaktype: String(facts.zaaktype),
        vertrouwelijkheidaanduiding: String(facts.vertrouwelijkheidaanduiding),
      };
    },
    visible: (doc, caller) => mayOnZaak(caller, zaakOfPart(doc), [LEZEN, ...def.scopes.create, ...def.scopes.update, ...def.scopes.destroy]),
    // Lists only the autorisaties restrict are counted from the counts kept per authorisation bucket.
    count: (filter, caller) =>
      !caller.all && sameFilter(filter, authFilter(caller, PART_AUTH_FIELDS)) ? () => resource.store.countBuckets(authBuckets(caller)) : undefined,
    filter: async (q, caller) => {
      const f: Doc = {};
      if (q.zaak) f.zaak = q.zaak;
      for (const k of def.exact ?? []) if (q[k] !== undefined && q[k] !== '') f[k] = q[k];
      const parts = [authFilter(caller, PART_AUTH_FIELDS), f as Filter<Document>, def.filter ? await def.filter(q) : {}].filter(
        (p) => Object.keys(p).length,
      );
      return parts.length === 0 ? {} : parts.length === 1 ? parts[0]! : { $and: parts };
    },
    prepare: async (data, ctx, current) => {
      const input = parseOrThrow(def.input, data) as Doc;
      mustBeUnchanged(current, input, ['zaak', ...(def.immutable ?? [])]);
      const zaak = await zaakOf(z, String(input.zaak));
      mustMayOnZaak(ctx.caller, zaak, current ? def.scopes.update : def.scopes.create);
      let doc = withDefaults(input, def.defaults ?? {});
      if (def.rules) doc = await def.rules(doc, zaak, ctx, current);
      // After the rules: invalid input is a 400 whether or not the zaak is closed (a second resultaat: `unique`).
      if (def.closedNeedsForce !== false) mustMayChangeClosed(ctx.caller, zaak);
      return { ...doc, ...partFacts(zaak), _bronorganisatie: zaak.bronorganisatie, _zaakUuid: zaak._id };
    },
    afterWrite: async (stored, ctx, previous) => {
      const zaak = await zaakOfStored(stored);
      if (!zaak) return;
      if (def.link && !previous) await z.zaken.store.raw.updateOne({ _id: zaak._id }, { $addToSet: { [def.link]: stored._id } });
      await def.afterWrite?.(stored, zaak, ctx, previous);
    },
    beforeDestroy: async (current, ctx) => {
      const zaak = await zaakOfStored(current);
      if (zaak) {
        mustMayOnZaak(ctx.caller, zaak, def.scopes.destroy);
        if (def.closedNeedsForce !== false) mustMayChangeClosed(ctx.caller, zaak);
      }
      await def.beforeDestroy?.(current, zaak ?? undefined, ctx);
    },
    afterDestroy: async (current, ctx) => {
      if (def.link) await z.zaken.store.raw.updateOne({ _id: String(current._zaakUuid) }, pull(def.link, current._id));
      await def.afterDestroy?.(current, ctx);
    },
    render: def.render,
  });
  resource.store.countBy(['_zaaktype', '_vertrouwelijkheid']);
  return resource;
}

/** Keeps the authorisation copies on every part of a zaak in step when its vertrouwelijkheidaanduiding changes. */
export async function syncPartFacts(z: Zaken, zaak: Stored<Doc>): Promise<void> {
  const facts = partFacts(zaak);
  const parts = [
    z.statussen,
    z.resultaten,
    z.rollen,
    z.zaakobjecten,
    z.zaakinformatieobjecten,
    z.klantcontacten,
    z.zaakcontactmomenten,
    z.zaakverzoeken,
    z.zaakeigenschappen,
    z.zaakbesluiten,
  ];
  for (const part of parts) await part.store.moveBucket({ zaak: z.zaken.url(zaak._id) }, facts);
}
