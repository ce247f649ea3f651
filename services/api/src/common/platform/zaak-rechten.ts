// The rights a caller holds on a zaak (Autorisaties: per zaaktype, up to a maxVertrouwelijkheidaanduiding): what
// the Zaken API checks on every zaak and part, and what the Besluiten and Overdrachten APIs check on a zaak of this
// platform they touch.
import type { Document, Filter } from 'mongodb';
import type { Caller } from '../auth/auth';
import { ZgwError } from '../http/errors';
import { nonField } from '../resources/rules';
import { VERTROUWELIJKHEIDAANDUIDINGEN, vertrouwelijkheidRank } from '../auth/vertrouwelijkheid';

/** The Zaken component in the Autorisaties API, and its scopes that other components check too. */
export const COMPONENT = 'zrc';
export const LEZEN = 'zaken.lezen';
export const GEFORCEERD = 'zaken.geforceerd-bijwerken';

/**
 * The condition that limits a query to what the caller may read with `scope`: per autorisatie of the Zaken
 * component with that scope, its zaaktype up to its maxVertrouwelijkheidaanduiding. Nothing for a caller with all
 * rights; a condition that matches nothing for a caller without any.
 */
export function authFilter(caller: Caller, fields: { zaaktype: string; rank: string }, scope = LEZEN): Filter<Document> {
  if (caller.all) return {};
  const branches = (caller.rights.autorisaties ?? [])
    .filter((a) => a.component === COMPONENT && a.scopes.includes(scope) && a.zaaktype)
    .map((a) => ({ [fields.zaaktype]: a.zaaktype, [fields.rank]: { $lte: vertrouwelijkheidRank(a.maxVertrouwelijkheidaanduiding ?? 'openbaar') } }));
  if (!branches.length) return { _id: { $in: [] } };
  return branches.length === 1 ? branches[0]! : { $or: branches };
}

/**
 * What the rights on a zaak are decided by: its zaaktype and vertrouwelijkheidaanduiding (and, to change it, whether
 * it is closed), of a stored zaak, a zaak as an API answers it, or the copies a part keeps (zaakOfPart).
 */
export type ZaakRechtenVan = { zaaktype: unknown; vertrouwelijkheidaanduiding?: unknown; einddatum?: unknown };

/** Whether the caller holds one of `scopes` for the zaak's zaaktype and vertrouwelijkheidaanduiding. */
export function mayOnZaak(caller: Caller, zaak: ZaakRechtenVan, scopes: readonly string[]): boolean {
  return scopes.some((s) => caller.allows(COMPONENT, s, 'zaaktype', String(zaak.zaaktype), String(zaak.vertrouwelijkheidaanduiding)));
}

export function mustMayOnZaak(caller: Caller, zaak: ZaakRechtenVan, scopes: readonly string[]): void {
  if (!mayOnZaak(caller, zaak, scopes)) {
    throw ZgwError.forbidden(`Deze actie vereist een van de scopes ${scopes.join(', ')} voor het zaaktype van de zaak.`);
  }
}

/** A closed zaak (einddatum set) may only change with `zaken.geforceerd-bijwerken`. */
export function mustMayChangeClosed(caller: Caller, zaak: ZaakRechtenVan): void {
  if (zaak.einddatum && !mayOnZaak(caller, zaak, [GEFORCEERD])) {
    throw ZgwError.forbidden('De zaak is afgesloten; wijzigen vereist de scope zaken.geforceerd-bijwerken.');
  }
}

/**
 * Whether a zaak is on legal hold: what every destruction list checks of each zaak, when it is made and again before
 * each zaak is destroyed, and what refuses its deletes (mustNotBeHeld).
 */
export const opBewaring = (zaak: { _bewaardSinds?: Date } | null | undefined): boolean => !!zaak?._bewaardSinds;

/**
 * What a zaak on legal hold (juridische bewaring, set through the admin API) holds is destroyed by no one, through the
 * ZGW APIs either (an archive tool that does not know the hold, a client, an import's cut-over): the zaak, a deelzaak
 * with it, one of its parts, a besluit of it (`juridische-bewaring`, until the archivist lifts the hold).
 */
export function mustNotBeHeld(zaak: { identificatie: string; _bewaardSinds?: Date } | null | undefined): void {
  if (zaak && opBewaring(zaak))
    throw nonField('juridische-bewaring', `Zaak ${zaak.identificatie} staat onder juridische bewaring; hef die eerst op.`);
}

/** The zaaktype and vertrouwelijkheidaanduiding of the zaak a stored part belongs to. */
export function zaakOfPart(part: { _zaaktype: unknown; _vertrouwelijkheid?: unknown }): {
  zaaktype: string;
  vertrouwelijkheidaanduiding: string | undefined;
} {
  return { zaaktype: String(part._zaaktype), vertrouwelijkheidaanduiding: VERTROUWELIJKHEIDAANDUIDINGEN[Number(part._vertrouwelijkheid)] };
}
