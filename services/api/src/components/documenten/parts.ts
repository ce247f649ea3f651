import type { Document, Filter } from 'mongodb';
import type { z } from 'zod';
import { Caller } from '../../common/auth/auth';
import { requireTenant } from '@zgw/shared';
import { ZgwError } from '../../common/http/errors';
import { Resource, type AnyQuery, type Operation, type ResourceDef, type WriteContext } from '../../common/platform/resource';
import { LIVE, inProef, type Stored } from '../../common/storage/store';
import {
  LEZEN,
  PART_AUTH_FIELDS,
  READY,
  and,
  authBuckets,
  authFilter,
  countableByBuckets,
  documentOfPart,
  mayOnDocument,
  mustMayOnDocument,
  onlyReady,
  partFacts,
  readyFilter,
  readyMark,
  withDefaults,
  type Documenten,
} from './context';
import { expandDocuments, parseExpand } from './expand';
import type { ExpandedAnswer } from '../../common/resources/expand';
import { V17, type EioDoc, type PartDoc, type PartFacts } from './schemas';

/**
 * An object that belongs to one document (gebruiksrechten, objectinformatieobject, verzending): it names its
 * document in `informatieobject` for good, is authorised by that document's informatieobjecttype and
 * vertrouwelijkheid (copied onto it, so lists filter inside the query), and expands its `informatieobject`.
 */
export interface PartDef<D extends PartDoc, Q extends AnyQuery = { informatieobject?: string }> {
  collection: string;
  resource: string;
  schema: z.ZodType;
  input: z.ZodObject;
  patchInput?: z.ZodObject;
  query: z.ZodObject & z.ZodType<Q>;
  scopes: ResourceDef<D>['scopes'];
  operations: Operation[];
  plainList?: boolean;
  /** What its 1.7 list and detail answers show (with the expanded `informatieobject`). */
  expanded17: z.ZodType;
  /** What the standard's file declares (see ResourceDef). */
  head?: ResourceDef<D>['head'];
  auditHeaders?: ResourceDef<D>['auditHeaders'];
  /** Notified on kanaal `documenten` with the document's kenmerken. */
  notify?: boolean;
  defaults?: Partial<D>;
  /** List filters besides `informatieobject`, as exact matches on the stored field of the same name. */
  exact?: (keyof Q & string)[];
  filter?(q: Q): Filter<Document>;
  /** The part's own rules on its (validated, defaulted) fields; the facts of its document are added after them. */
  rules?: (doc: PartFields<D>, eio: Stored<EioDoc>, ctx: WriteContext, current?: Stored<D>) => Promise<PartFields<D>>;
  afterWrite?: (stored: Stored<D>, eio: Stored<EioDoc>, ctx: WriteContext, previous?: Stored<D>) => Promise<void>;
  beforeDestroy?: (current: Stored<D>, ctx: WriteContext) => Promise<void>;
  afterDestroy?: (current: Stored<D>, ctx: WriteContext) => Promise<void>;
}

/** A part's own fields: what its document's facts are added to. */
export type PartFields<D extends PartDoc> = Omit<D, keyof PartFacts>;

/**
 * The document a part's `informatieobject` names: `no_match` when it is no document URL of this API, `does_not_exist`
 * when gone (or, for a caller that reads only documents ready for publication, not ready).
 */
export async function documentOf(d: Documenten, url: string, name = 'informatieobject', caller?: Caller): Promise<Stored<EioDoc>> {
  const uuid = d.informatieobjecten.uuidOf(url);
  if (!uuid) throw ZgwError.field(name, 'no_match', `${url} is geen document van deze Documenten API.`);
  let eio = await d.informatieobjecten.store.findOne({ _id: uuid, ...(caller ? readyFilter(caller) : {}) } as Filter<Document>);
  // (a dry run of the import: the document the run would have stored, kept aside, which Store.get finds)
  if (!eio && inProef()) {
    const proef = await d.informatieobjecten.store.get(uuid);
    if (proef && (!caller || !onlyReady(caller) || (proef as Document)[READY] === true)) eio = proef;
  }
  if (!eio) throw ZgwError.field(name, 'does_not_exist', `Het document ${url} bestaat niet.`);
  return eio;
}

export function registerPart<D extends PartDoc, Q extends AnyQuery = { informatieobject?: string }>(d: Documenten, def: PartDef<D, Q>): Resource<D> {
  const scopesOf = (s: ResourceDef<D>['scopes']) => [LEZEN, ...s.create, ...s.update, ...s.destroy];
  const resource: Resource<D> = new Resource<D, z.output<z.ZodObject>, Q>(d.api, {
    collection: def.collection,
    resource: def.resource,
    schema: def.schema,
    input: def.input,
    patchInput: def.patchInput,
    query: def.query,
    readQuery: def.query.pick({ expand: true }),
    variants: { [V17]: { expanded: def.expanded17 } },
    scopes: def.scopes,
    operations: def.operations,
    plainList: def.plainList,
    head: def.head,
    auditHeaders: def.auditHeaders,
    kanaal: def.notify ? 'documenten' : undefined,
    hoofdObject: (doc) => doc.informatieobject,
    kenmerken: (doc) => {
      const facts = documentOfPart(doc);
      return {
        bronorganisatie: doc._bronorganisatie ?? '',
        informatieobjecttype: facts.informatieobjecttype,
        vertrouwelijkheidaanduiding: facts.vertrouwelijkheidaanduiding ?? '',
      };
    },
    visible: (doc, caller) => mayOnDocument(caller, documentOfPart(doc), scopesOf(def.scopes)),
    // The objects of a document not ready for publication do not exist for a caller that reads only ready ones.
    callerFilter: readyFilter,
    count: (filter, caller) =>
      countableByBuckets(caller, filter, PART_AUTH_FIELDS) ? () => resource.store.countBuckets(authBuckets(caller)) : undefined,
    filter: (q, caller) => {
      const f: Filter<Document> = {};
      if ('informatieobject' in q && q.informatieobject) f.informatieobject = q.informatieobject;
      for (const k of def.exact ?? []) if (q[k] !== undefined && q[k] !== '') f[k] = q[k];
      return and(authFilter(caller, PART_AUTH_FIELDS), f, def.filter ? def.filter(q) : {});
    },
    prepare: async (data, ctx, current) => {
      const input = data as PartFields<D>;
      if (current && input.informatieobject !== current.informatieobject) {
        throw ZgwError.field('informatieobject', 'wijzigen-niet-toegelaten', 'informatieobject mag niet gewijzigd worden.');
      }
      const eio = await documentOf(d, input.informatieobject, 'informatieobject', ctx.caller);
      mustMayOnDocument(ctx.caller, eio, current ? def.scopes.update : def.scopes.create);
      let doc = withDefaults(input, def.defaults ?? {}) as PartFields<D>;
      if (def.rules) doc = await def.rules(doc, eio, ctx, current);
      return { ...doc, ...partFacts(eio), _bronorganisatie: eio.bronorganisatie } as D;
    },
    afterWrite: def.afterWrite
      ? async (stored, ctx, previous) => {
          const eio = await d.informatieobjecten.byUrl(stored.informatieobject);
          if (eio) await def.afterWrite!(stored, eio, ctx, previous);
        }
      : undefined,
    beforeDestroy: async (current, ctx) => {
      mustMayOnDocument(ctx.caller, documentOfPart(current), def.scopes.destroy);
      await def.beforeDestroy?.(current, ctx);
    },
    afterDestroy: def.afterDestroy,
    render: async (doc, _url, query, req) => {
      const tree = parseExpand(query?.expand, ['informatieobject']);
      if (!tree) return {};
      const view: ExpandedAnswer & { informatieobject: string } = { informatieobject: doc.informatieobject };
      // the documents of objects the caller may already see (they share the document's autorisaties)
      await expandDocuments(d, Caller.system(requireTenant()), [view], tree, req);
      return { _expand: view._expand };
    },
  });
  resource.store.countBy(['_informatieobjecttype', '_vertrouwelijkheid']);
  return resource;
}

/** Keeps the authorisation copies on every object of a document in step when its vertrouwelijkheidaanduiding changes. */
export async function syncPartFacts(d: Documenten, eio: Stored<EioDoc>, parts: Resource<PartDoc>[]): Promise<void> {
  const { _informatieobjecttype, _vertrouwelijkheid } = partFacts(eio);
  for (const part of parts)
    await part.store.moveBucket({ informatieobject: d.informatieobjecten.url(eio._id) }, { _informatieobjecttype, _vertrouwelijkheid });
}

/** Keeps `_gereed` on every object of a document in step when its isGereedVoorPublicatie changes (see READY). */
export async function syncReady(d: Documenten, eio: Stored<EioDoc>, parts: Resource<PartDoc>[]): Promise<void> {
  const update = readyMark(eio.isGereedVoorPublicatie) ? { $set: { [READY]: true } } : { $unset: { [READY]: '' } };
  for (const part of parts) await part.store.raw.updateMany({ informatieobject: d.informatieobjecten.url(eio._id), ...LIVE }, update);
}
