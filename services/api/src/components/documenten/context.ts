import type { Document, Filter } from 'mongodb';
import type { z } from 'zod';
import type { Caller } from '../../common/auth/auth';
import type { ComponentApi } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import type { GenummerdeIdentificaties } from '../../common/storage/identificaties';
import type { CatalogiLinks, DocumentLinks } from '../../common/platform/links';
import type { Resource, WriteContext } from '../../common/platform/resource';
import type { IndexDef, Stored } from '../../common/storage/store';
import { VERTROUWELIJKHEIDAANDUIDINGEN, vertrouwelijkheidRank } from '../../common/auth/vertrouwelijkheid';
import type { References } from '../../common/platform/references';
import { sameFilter } from '../../common/resources/rules';
import type { InhoudStore } from './inhoud';
import type { BestandsDeel, EioDoc, GebruiksrechtenDoc, ObjectInformatieObjectDoc, PartDoc, PartFacts, VerzendingDoc } from './schemas';
import type { Versies } from './versies';

export { and, nonField, sameFilter, withDefaults } from '../../common/resources/rules';

export const COMPONENT = 'drc';
export const LEZEN = 'documenten.lezen';
export const AANMAKEN = 'documenten.aanmaken';
export const BIJWERKEN = 'documenten.bijwerken';
export const GEFORCEERD_BIJWERKEN = 'documenten.geforceerd-bijwerken';
export const VERWIJDEREN = 'documenten.verwijderen';
export const LOCK = 'documenten.lock';
export const GEFORCEERD_UNLOCK = 'documenten.geforceerd-unlock';

export const READ = [LEZEN];
export const UPDATE = [BIJWERKEN, GEFORCEERD_BIJWERKEN];
/** Every scope that lets a client see a document at all. */
export const ANY_DOCUMENT_SCOPE = [LEZEN, AANMAKEN, BIJWERKEN, GEFORCEERD_BIJWERKEN, VERWIJDEREN, LOCK, GEFORCEERD_UNLOCK];

/** A large document's content in parts (bestandsdelen.ts): what the document's own rules do with them. */
export interface Delen {
  /** Stores the parts of a document of `omvang` bytes (before the document); how many. */
  create(eio: string, omvang: number): Promise<number>;
  /** The parts as a document shows them; the lock only to whoever has it already. */
  view(eio: Stored<EioDoc>, lock?: string): Promise<z.output<typeof BestandsDeel>[]>;
  /** Before an unlock: complete parts become the content; incomplete ones refuse it unless `giveUp`. */
  complete(eio: Stored<EioDoc>, giveUp: boolean): Promise<void>;
  /** Removes the parts of a document that goes, with what was uploaded of them. */
  remove(eio: string): Promise<void>;
  ensureIndexes(): Promise<void>;
}

/** Every Documenten resource and service, so that the rules of one can read and update the others. */
export interface Documenten {
  api: ComponentApi;
  catalogi: CatalogiLinks;
  refs: References;
  inhoud: InhoudStore;
  bestandsdelen: Delen;
  versies: Versies;
  identificaties: GenummerdeIdentificaties;
  informatieobjecten: Resource<EioDoc>;
  gebruiksrechten: Resource<GebruiksrechtenDoc>;
  objectinformatieobjecten: Resource<ObjectInformatieObjectDoc>;
  verzendingen: Resource<VerzendingDoc>;
  links: DocumentLinks;
  /** Keeps the objects of a document in step after an update (their authorisation copies). */
  onDocumentChanged?(stored: Stored<EioDoc>, previous: Stored<EioDoc>): Promise<void>;
  /** Rules and cascades of deleting a document (its relations, its gebruiksrechten). */
  beforeDocumentDestroy?(current: Stored<EioDoc>, ctx: WriteContext): Promise<void>;
  afterDocumentDestroy?(current: Stored<EioDoc>, ctx: WriteContext): Promise<void>;
}

/**
 * Where a document's authorisation facts live: on the document its `informatieobjecttype` and `_vertrouwelijkheid`
 * (the rank of its vertrouwelijkheidaanduiding); on the objects that belong to a document (gebruiksrechten,
 * objectinformatieobjecten, verzendingen) copies of both, so every list applies the autorisaties inside its query.
 */
export const EIO_AUTH_FIELDS = { type: 'informatieobjecttype', rank: '_vertrouwelijkheid' } as const;
export const PART_AUTH_FIELDS = { type: '_informatieobjecttype', rank: '_vertrouwelijkheid' } as const;

/**
 * Autorisaties 1.1: an applicatie with `alleenIsGereedVoorPublicatie` reads only documents whose
 * `isGereedVoorPublicatie` is true, and only their objects. A document ready for publication and each of its objects
 * carry `_gereed: true` (absent otherwise), so the condition is part of every query and partial indexes of the ready
 * documents serve it (see `withReadyTwins`).
 */
export const READY = '_gereed';

export function onlyReady(caller: Caller): boolean {
  return caller.rights.alleenIsGereedVoorPublicatie === true;
}

/** The condition that keeps documents (and their objects) not ready for publication from a caller that reads only those. */
export function readyFilter(caller: Caller): Filter<Document> {
  return onlyReady(caller) ? { [READY]: true } : {};
}

/** `_gereed` of a document about to be stored: true when ready for publication, else undefined (not stored). */
export function readyMark(isGereedVoorPublicatie: unknown): true | undefined {
  return isGereedVoorPublicatie === true ? true : undefined;
}

/**
 * The condition that limits a query to what the caller may handle with `scope`: per autorisatie of the Documenten
 * component with that scope, its informatieobjecttype up to its maxVertrouwelijkheidaanduiding; for a caller that
 * reads only documents ready for publication, only those. Nothing else for a caller with all rights; a condition
 * that matches nothing for a caller without any.
 */
export function authFilter(caller: Caller, fields: { type: string; rank: string }, scope = LEZEN): Filter<Document> {
  const ready = readyFilter(caller);
  if (caller.all) return ready;
  const branches = (caller.rights.autorisaties ?? [])
    .filter((a) => a.component === COMPONENT && a.scopes.includes(scope) && a.informatieobjecttype)
    .map((a) => ({
      [fields.type]: a.informatieobjecttype,
      [fields.rank]: { $lte: vertrouwelijkheidRank(a.maxVertrouwelijkheidaanduiding ?? 'openbaar') },
    }));
  if (!branches.length) return { _id: { $in: [] } };
  return { ...(branches.length === 1 ? branches[0]! : { $or: branches }), ...ready };
}

/**
 * Whether a list with this filter is restricted only by the caller's autorisaties, so that its count is the sum of
 * the maintained counts of their buckets (which do not split by readiness: not for a caller that reads only ready ones).
 */
export function countableByBuckets(caller: Caller, filter: Filter<Document>, fields: { type: string; rank: string }): boolean {
  return !caller.all && !onlyReady(caller) && sameFilter(filter, authFilter(caller, fields));
}

/**
 * Each index with its partial twin over the documents ready for publication (`_gereed` first): every query a
 * declared index serves is then served with the condition of `readyFilter` too, from an index of the ready ones only.
 */
export function withReadyTwins(indexes: IndexDef[], plain: IndexDef[] = [{ key: { _created: 1, _id: 1 } }]): IndexDef[] {
  const twin = (ix: IndexDef): IndexDef => ({
    key: { [READY]: 1, ...(ix.key as Record<string, 1>) },
    partialFilterExpression: { ...ix.partialFilterExpression, [READY]: { $exists: true } },
  });
  return [...indexes, ...[...plain, ...indexes.filter((ix) => !ix.unique)].map(twin)];
}

/** The (informatieobjecttype, vertrouwelijkheid rank) buckets `authFilter` matches, as keys of maintained counts. */
export function authBuckets(caller: Caller, scope = LEZEN): [string, number][] {
  const max = new Map<string, number>();
  for (const a of caller.rights.autorisaties ?? []) {
    if (a.component !== COMPONENT || !a.scopes.includes(scope) || !a.informatieobjecttype) continue;
    const rank = vertrouwelijkheidRank(a.maxVertrouwelijkheidaanduiding ?? 'openbaar');
    max.set(a.informatieobjecttype, Math.max(rank, max.get(a.informatieobjecttype) ?? -1));
  }
  return [...max].flatMap(([type, rank]) => Array.from({ length: rank + 1 }, (_, r) => [type, r] as [string, number]));
}

/** What a document's autorisaties look at. */
export interface DocumentAuth {
  informatieobjecttype: string;
  vertrouwelijkheidaanduiding?: string;
}

/** Whether the caller holds one of `scopes` for the document's informatieobjecttype and vertrouwelijkheidaanduiding. */
export function mayOnDocument(caller: Caller, doc: DocumentAuth, scopes: readonly string[]): boolean {
  return scopes.some((s) => caller.allows(COMPONENT, s, 'informatieobjecttype', doc.informatieobjecttype, doc.vertrouwelijkheidaanduiding));
}

export function mustMayOnDocument(caller: Caller, doc: DocumentAuth, scopes: readonly string[]): void {
  if (!mayOnDocument(caller, doc, scopes)) {
    throw ZgwError.forbidden(`Deze actie vereist een van de scopes ${scopes.join(', ')} voor het informatieobjecttype van het document.`);
  }
}

/** The document facts an object of a document carries for authorisation (see PART_AUTH_FIELDS and READY). */
export function partFacts(eio: EioDoc): PartFacts {
  return {
    _informatieobjecttype: eio.informatieobjecttype,
    _vertrouwelijkheid: vertrouwelijkheidRank(eio.vertrouwelijkheidaanduiding ?? ''),
    [READY]: readyMark(eio.isGereedVoorPublicatie),
  };
}

/** The informatieobjecttype and vertrouwelijkheidaanduiding of the document a stored part belongs to. */
export function documentOfPart(part: PartDoc): DocumentAuth {
  return {
    informatieobjecttype: part._informatieobjecttype,
    vertrouwelijkheidaanduiding: VERTROUWELIJKHEIDAANDUIDINGEN[part._vertrouwelijkheid],
  };
}
