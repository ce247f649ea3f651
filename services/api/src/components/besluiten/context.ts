import type { Document, Filter } from 'mongodb';
import type { Caller } from '../../common/auth/auth';
import type { ComponentApi } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import type { GenummerdeIdentificaties } from '../../common/storage/identificaties';
import type { BesluitLinks, CatalogiLinks } from '../../common/platform/links';
import type { Resource } from '../../common/platform/resource';
import type { References } from '../../common/platform/references';
import { mustNotBeHeld } from '../../common/platform/zaak-rechten';
import type { BesluitDoc, BesluitInformatieObjectDoc } from './schemas';

export { and, mustBeUnchanged, nonField, withDefaults } from '../../common/resources/rules';

export const COMPONENT = 'brc';
export const LEZEN = 'besluiten.lezen';
export const AANMAKEN = 'besluiten.aanmaken';
export const BIJWERKEN = 'besluiten.bijwerken';
export const VERWIJDEREN = 'besluiten.verwijderen';

export const READ = [LEZEN];
/** Every scope that lets a client see a besluit at all (reads need besluiten.lezen; writes check their own scope). */
export const ANY_BESLUIT_SCOPE = [LEZEN, AANMAKEN, BIJWERKEN, VERWIJDEREN];

/** Every Besluiten resource and service, so that the rules of one can read and update the others. */
export interface Besluiten {
  api: ComponentApi;
  catalogi: CatalogiLinks;
  refs: References;
  identificaties: GenummerdeIdentificaties;
  besluiten: Resource<BesluitDoc>;
  besluitinformatieobjecten: Resource<BesluitInformatieObjectDoc>;
  links: BesluitLinks;
}

/**
 * Where a besluit's authorisation fact lives: on the besluit its `besluittype`; on its besluitinformatieobjecten a
 * copy (`_besluittype`), so every list applies the caller's autorisaties inside the query. The Besluiten API
 * authorises by besluittype alone (Autorisaties: no maxVertrouwelijkheidaanduiding for brc).
 */
export const BESLUIT_AUTH_FIELD = 'besluittype';
export const PART_AUTH_FIELD = '_besluittype';

/** The besluittypen the caller holds `scope` for, or undefined for a caller with all rights. */
export function besluittypenWith(caller: Caller, scope = LEZEN): string[] | undefined {
  if (caller.all) return undefined;
  const types = (caller.rights.autorisaties ?? [])
    .filter((a) => a.component === COMPONENT && a.scopes.includes(scope) && a.besluittype)
    .map((a) => a.besluittype!);
  return [...new Set(types)];
}

/**
 * The condition that limits a query to what the caller may read: one equality per authorised besluittype (each
 * served by the field's index in list order, which an `$in` with a sort is not). Nothing for a caller with all
 * rights; a condition that matches nothing for a caller without any.
 */
export function authFilter(caller: Caller, field: string): Filter<Document> {
  const types = besluittypenWith(caller);
  if (!types) return {};
  if (!types.length) return { _id: { $in: [] } };
  return types.length === 1 ? { [field]: types[0] } : { $or: types.map((t) => ({ [field]: t })) };
}

/** Whether the caller holds one of `scopes` for the besluittype. */
export function mayOnBesluittype(caller: Caller, besluittype: unknown, scopes: readonly string[]): boolean {
  return scopes.some((s) => caller.allows(COMPONENT, s, 'besluittype', String(besluittype)));
}

export function mustMayOnBesluittype(caller: Caller, besluittype: unknown, scopes: readonly string[]): void {
  if (!mayOnBesluittype(caller, besluittype, scopes)) {
    throw ZgwError.forbidden(`Deze actie vereist een van de scopes ${scopes.join(', ')} voor het besluittype van het besluit.`);
  }
}

/** Today as the API's dates are written (YYYY-MM-DD, UTC). */
export function vandaag(): string {
  return new Date().toISOString().slice(0, 10);
}

/** A zaak of this platform's Zaken API (in this process), by its URL. */
export function isLocalZaak(b: Besluiten, zaak: unknown): boolean {
  return typeof zaak === 'string' && zaak !== '' && !!b.api.deps.components.zaken?.zaken.uuidOf(zaak);
}

/** A besluit (or one of its besluitinformatieobjecten) of a zaak on legal hold stays (`juridische-bewaring`). */
export async function mustKeepHeldZaak(b: Besluiten, zaakUrl: unknown): Promise<void> {
  if (isLocalZaak(b, zaakUrl)) mustNotBeHeld(await b.api.deps.components.zaken!.zaken.byUrl(String(zaakUrl)));
}
