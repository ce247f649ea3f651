import type { Document, Filter } from 'mongodb';
import type { Caller } from '../../common/auth/auth';
import type { ComponentApi } from '../../common/platform/component';
import type { CatalogiLinks, ZaakBesluitLinks, ZakenLinks } from '../../common/platform/links';
import type { References } from '../../common/platform/references';
import type { Resource } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import { vertrouwelijkheidRank } from '../../common/auth/vertrouwelijkheid';
import { COMPONENT, GEFORCEERD, LEZEN } from '../../common/platform/zaak-rechten';
import type { BrondatumSources } from './archief';
import type {
  KlantContactDoc,
  ResultaatDoc,
  RolDoc,
  StatusDoc,
  ZaakBesluitDoc,
  ZaakNotitieDoc,
  ZaakContactMomentDoc,
  ZaakDoc,
  ZaakEigenschapDoc,
  ZaakInformatieObjectDoc,
  ZaakObjectDoc,
  ZaakPartDoc,
  ZaakVerzoekDoc,
} from './schemas';

export { mustBeUnchanged, nonField, sameFilter, withDefaults } from '../../common/resources/rules';

export {
  COMPONENT,
  GEFORCEERD,
  LEZEN,
  authFilter,
  mayOnZaak,
  mustMayChangeClosed,
  mustMayOnZaak,
  zaakOfPart,
} from '../../common/platform/zaak-rechten';
export const AANMAKEN = 'zaken.aanmaken';
export const BIJWERKEN = 'zaken.bijwerken';
export const HEROPENEN = 'zaken.heropenen';
export const STATUSSEN_TOEVOEGEN = 'zaken.statussen.toevoegen';
export const VERWIJDEREN = 'zaken.verwijderen';

export const READ = [LEZEN];
export const UPDATE = [BIJWERKEN, GEFORCEERD];

/** Rollen read whole while answering one request, by uuid: an expansion of the same answer takes them from there. */
export type RollenRead = Map<string, Stored<RolDoc>>;

/** Every Zaken resource, so that the rules of one can read and update the others. Filled in by `register`. */
export interface Zaken extends ZakenLinks {
  api: ComponentApi;
  catalogi: CatalogiLinks;
  refs: References;
  zaken: Resource<ZaakDoc>;
  statussen: Resource<StatusDoc>;
  resultaten: Resource<ResultaatDoc>;
  rollen: Resource<RolDoc>;
  zaakobjecten: Resource<ZaakObjectDoc>;
  zaakinformatieobjecten: Resource<ZaakInformatieObjectDoc>;
  klantcontacten: Resource<KlantContactDoc>;
  zaakcontactmomenten: Resource<ZaakContactMomentDoc>;
  zaakverzoeken: Resource<ZaakVerzoekDoc>;
  zaakeigenschappen: Resource<ZaakEigenschapDoc>;
  zaakbesluiten: Resource<ZaakBesluitDoc>;
  zaaknotities: Resource<ZaakNotitieDoc>;
  /** How the Besluiten API of this platform keeps the zaakbesluiten in step with the `zaak` of its besluiten. */
  besluitLinks: ZaakBesluitLinks;
  identificaties: { next(bronorganisatie: string, startdatum: string): Promise<string> };
  brondatumSources(zaak: ZaakDoc): BrondatumSources;
}

/** Links from a zaak to its parts, kept on the zaak as uuids so that a zaak is read with one lookup by `_id`. */
export const PART_LINKS = {
  rollen: '_rollen',
  zaakobjecten: '_zaakobjecten',
  eigenschappen: '_eigenschappen',
  zaakinformatieobjecten: '_zaakinformatieobjecten',
  deelzaken: '_deelzaken',
} as const;

/** The ids of a zaak's parts of one kind, as the zaak keeps them (none before the first). */
export const linkedIds = (zaak: Pick<ZaakDoc, (typeof PART_LINKS)[keyof typeof PART_LINKS]>, part: keyof typeof PART_LINKS): string[] =>
  zaak[PART_LINKS[part]] ?? [];

/**
 * Where a zaak's authorisation facts live: on the zaak itself its `zaaktype` and `_vertrouwelijkheid` (the rank of
 * its vertrouwelijkheidaanduiding); on every part of a zaak copies of both (`_zaaktype`, `_vertrouwelijkheid`), so
 * every list can apply the caller's autorisaties inside the query.
 */
export const ZAAK_AUTH_FIELDS = { zaaktype: 'zaaktype', rank: '_vertrouwelijkheid' } as const;
export const PART_AUTH_FIELDS = { zaaktype: '_zaaktype', rank: '_vertrouwelijkheid' } as const;

/**
 * The authorisation buckets (zaaktype, vertrouwelijkheid rank) the caller may read with `scope`: what `authFilter`
 * matches, as the keys of the counts a Store maintains per bucket (`countBy(['zaaktype', '_vertrouwelijkheid'])`).
 */
export function authBuckets(caller: Caller, scope = LEZEN): [string, number][] {
  const max = new Map<string, number>();
  for (const a of caller.rights.autorisaties ?? []) {
    if (a.component !== COMPONENT || !a.scopes.includes(scope) || !a.zaaktype) continue;
    const rank = vertrouwelijkheidRank(a.maxVertrouwelijkheidaanduiding ?? 'openbaar');
    max.set(a.zaaktype, Math.max(rank, max.get(a.zaaktype) ?? -1));
  }
  return [...max].flatMap(([zaaktype, rank]) => Array.from({ length: rank + 1 }, (_, r) => [zaaktype, r] as [string, number]));
}

/** The zaak facts a part of a zaak carries for authorisation (see PART_AUTH_FIELDS). */
export function partFacts(zaak: ZaakDoc): Pick<ZaakPartDoc, '_zaaktype' | '_vertrouwelijkheid'> {
  return { _zaaktype: zaak.zaaktype, _vertrouwelijkheid: vertrouwelijkheidRank(zaak.vertrouwelijkheidaanduiding ?? '') };
}

/** Every part of a zaak (each of a zaak is removed with it, and follows its authorisation facts). */
export function partsOf(z: Zaken): Resource<ZaakPartDoc>[] {
  return [
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
    z.zaaknotities,
  ];
}

/** A filter on documents whose `_id` (a uuid) is one of `ids`. */
export function idsIn(ids: unknown[]): Filter<Document> {
  return { _id: { $in: ids.map(String) } } as unknown as Filter<Document>;
}
