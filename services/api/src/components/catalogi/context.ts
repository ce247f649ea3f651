import type { Document, Filter } from 'mongodb';
import type { Caller } from '../../common/auth/auth';
import { ZgwError, type InvalidParam } from '../../common/http/errors';
import type { CatalogiLinks } from '../../common/platform/links';
import type { Resource } from '../../common/platform/resource';
import { publicFields, type Stored } from '../../common/storage/store';
import type {
  BesluitTypeDoc,
  CatalogusDoc,
  EigenschapDoc,
  InformatieObjectTypeDoc,
  ResultaatTypeDoc,
  RolTypeDoc,
  StatusTypeDoc,
  ZaakObjectTypeDoc,
  ZaakTypeDoc,
  ZiotDoc,
} from './schemas';
import type { SelectielijstClient } from './selectielijst';

export { and, nonField, withDefaults } from '../../common/resources/rules';

export const READ = ['catalogi.lezen'];
export const WRITE = ['catalogi.schrijven'];
export const GEFORCEERD_SCHRIJVEN = 'catalogi.geforceerd-schrijven';
export const GEFORCEERD_VERWIJDEREN = 'catalogi.geforceerd-verwijderen';
export const WRITE_OR_FORCED = ['catalogi.schrijven', GEFORCEERD_SCHRIJVEN];
export const DELETE_OR_FORCED = ['catalogi.schrijven', GEFORCEERD_VERWIJDEREN];

/** Every Catalogi resource, so rules of one type can read the others (and what other components use of them). Filled in by `register`. */
export interface Catalogi extends CatalogiLinks {
  selectielijst: SelectielijstClient;
  catalogussen: Resource<CatalogusDoc>;
  zaaktypen: Resource<ZaakTypeDoc>;
  besluittypen: Resource<BesluitTypeDoc>;
  informatieobjecttypen: Resource<InformatieObjectTypeDoc>;
  statustypen: Resource<StatusTypeDoc>;
  roltypen: Resource<RolTypeDoc>;
  eigenschappen: Resource<EigenschapDoc>;
  resultaattypen: Resource<ResultaatTypeDoc>;
  zaakobjecttypen: Resource<ZaakObjectTypeDoc>;
  ziot: Resource<ZiotDoc>;
  /** The publication of each type that has one (the route's checks and follow-ups), by UUID: what an import uses. */
  publishers: Record<'zaaktypen' | 'besluittypen' | 'informatieobjecttypen', Publisher>;
}

/** Ends the concept phase of a type by its UUID (see publish.ts). */
export type Publisher = (uuid: string) => Promise<void>;

/** The resources that hang under one zaaktype (cascade on delete, `_concept` mirrors the zaaktype). */
export const ZAAKTYPE_ONDERDELEN = ['statustypen', 'roltypen', 'eigenschappen', 'resultaattypen', 'zaakobjecttypen', 'ziot'] as const;

export function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/**
 * The stored object a URL field points at: `bad-url` when the URL is not one of ours for that resource,
 * `does_not_exist` when it is but nothing is there.
 */
export async function resolveLocal<D extends Document>(
  resource: Resource<D>,
  name: string,
  url: string,
): Promise<{ doc?: Stored<D>; error?: InvalidParam }> {
  const uuid = resource.uuidOf(url);
  if (!uuid) return { error: { name, code: 'bad-url', reason: `De URL ${url} wijst niet naar een ${resource.def.resource} van deze Catalogi API.` } };
  const doc = await resource.store.get(uuid);
  if (!doc) return { error: { name, code: 'does_not_exist', reason: `${resource.def.resource} ${url} bestaat niet.` } };
  return { doc };
}

export async function mustResolve<D extends Document>(resource: Resource<D>, name: string, url: string): Promise<Stored<D>> {
  const r = await resolveLocal(resource, name, url);
  if (r.error) throw ZgwError.validation([r.error]);
  return r.doc!;
}

/**
 * Objects valid on `datum` (YYYY-MM-DD): begin on or before it (or open), einde on or after it (or open). Written as
 * `$not` of the opposite comparison, which also matches null and missing: two index ranges instead of two `$or`s.
 */
export function geldigOp(datum: string, begin = 'beginGeldigheid', einde = 'eindeGeldigheid'): Filter<Document> {
  return { [begin]: { $not: { $gt: datum } }, [einde]: { $not: { $lt: datum } } };
}

/** The `status` filter; the standard's default is `definitief`. `field` is `concept` or the mirrored `_concept`. */
export function statusFilter(status: unknown, field = 'concept'): Filter<Document> {
  if (status === 'alles') return {};
  if (status === 'concept') return { [field]: true };
  return { [field]: false };
}

/** The fields whose value differs between the stored object and what would be stored now. */
export function changedFields(current: Stored<Document>, next: Document): string[] {
  const before = publicFields(current);
  const keys = new Set([...Object.keys(before), ...Object.keys(next)]);
  return [...keys].filter((k) => !k.startsWith('_') && JSON.stringify(before[k] ?? null) !== JSON.stringify(next[k] ?? null));
}

/** A published type may still get an eindeGeldigheid (ending it) without the forced scope. */
export function onlyEndsGeldigheid(current: Stored<Document>, next: Document): boolean {
  return changedFields(current, next).every((k) => k === 'eindeGeldigheid');
}

export function mayForceWrite(caller: Caller): boolean {
  return caller.hasScope(GEFORCEERD_SCHRIJVEN);
}

export function mayForceDelete(caller: Caller): boolean {
  return caller.hasScope(GEFORCEERD_VERWIJDEREN);
}
