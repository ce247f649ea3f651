import type { IndexDef, Query } from '../../common/storage/store';
import type { ZaakDoc } from './schemas';

export type { Bewaring } from './schemas';
export { mustNotBeHeld, opBewaring } from '../../common/platform/zaak-rechten';

/**
 * Legal hold (juridische bewaring) and the archivist's worklist (docs/admin.md "Archief", docs/apis.md "Archive
 * dates"). A hold is kept on the zaak as internal fields, never in its ZGW representation: `_bewaring` (the reason,
 * who set it and when) and `_bewaardSinds` (when, the key the zaken on hold are listed by). Set and lifted only
 * through the admin API (admin/archief.ts), each in the zaak's audit trail; `opBewaring` tells whether a zaak is on
 * hold, `mustNotBeHeld` refuses a delete of what it holds.
 */

/** The store query of the zaken on hold (served by BEWARING_INDEXES); a destruction list's selection adds NIET_OP_BEWARING. */
export const OP_BEWARING: Query = { _bewaardSinds: { $exists: true } };
/** The zaken not on hold, for a destruction list's selection (a condition on the documents its own index found). */
export const NIET_OP_BEWARING: Query = { _bewaardSinds: { $exists: false } };

/** Why a closed zaak is on the worklist: vernietigen without a date; no nominatie, for want of a resultaat or from its resultaattype. */
export type WerklijstReden = 'geen_archiefactiedatum' | 'geen_resultaat' | 'geen_archiefnominatie';

/**
 * The closed zaken whose archiving an archivist must complete (not archived yet): archiefnominatie `vernietigen`
 * without an archiefactiedatum (the resultaattype derives none: `ander_datumkenmerk`, a source without a date), or no
 * archiefnominatie at all (no resultaat, or a resultaattype that gives none). Oldest einddatum first.
 */
export const WERKLIJST: Query = {
  archiefstatus: 'nog_te_archiveren',
  einddatum: { $gt: '' },
  $or: [{ archiefnominatie: 'vernietigen', archiefactiedatum: null }, { archiefnominatie: null }],
};
export const WERKLIJST_SORT = { einddatum: 1, _id: 1 } as const;

export function werklijstReden(zaak: Pick<ZaakDoc, 'archiefnominatie' | '_resultaat'>): WerklijstReden {
  if (zaak.archiefnominatie) return 'geen_archiefactiedatum';
  return zaak._resultaat ? 'geen_archiefnominatie' : 'geen_resultaat';
}

/** The indexes of the zaken on hold and of the worklist (each led by the tenant, as every index of a tenant's collection). */
export const BEWARING_INDEXES: IndexDef[] = [
  // only the zaken on hold, newest first
  { key: { _bewaardSinds: 1, _id: 1 }, partialFilterExpression: { _bewaardSinds: { $exists: true } } },
  // the worklist, each branch of its $or: vernietigen without a date; without a nominatie
  { key: { archiefstatus: 1, archiefnominatie: 1, archiefactiedatum: 1, einddatum: 1, _id: 1 } },
  { key: { archiefstatus: 1, archiefnominatie: 1, einddatum: 1, _id: 1 } },
];
