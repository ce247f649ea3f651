import { z } from 'zod';
import { borrowed, expandedOf, lend, toOne } from '../../common/resources/embedded';
import { expandParam } from '../../common/resources/expand';
import { date, url, type StoredFields } from '../../common/resources/schema-parts';

/**
 * Besluiten API 1.0.2 resources, with the 1.1.0 `expand` on the lists and details (compatible: a client that does
 * not send it sees 1.0.2). As in Zaken: an input schema per resource with only the writable fields and an output
 * schema for the OpenAPI document; read-only and derived fields are set by the resource's rules.
 */

const text = (max: number) => z.string().max(max);
const rsin = z.string().regex(/^\d{9}$/, { message: 'Een RSIN bestaat uit 9 cijfers.' });
const blank = z.literal('');
const urlFilter = z.url().optional();

export const VERVALREDENEN = {
  tijdelijk: 'Besluit met tijdelijke werking',
  ingetrokken_overheid: 'Besluit ingetrokken door overheid',
  ingetrokken_belanghebbende: 'Besluit ingetrokken o.v.v. belanghebbende',
} as const;
export const VERVALREDEN = z.enum(Object.keys(VERVALREDENEN) as [keyof typeof VERVALREDENEN, ...(keyof typeof VERVALREDENEN)[]]);

/** The link fields the first level of `expand` may name, per resource (Besluiten 1.1.0). */
export const EXPANDABLE = {
  besluit: ['besluittype', 'zaak'],
  besluitinformatieobject: ['besluit', 'informatieobject'],
} as const;

// ---------------------------------------------------------------- Besluit

export const BesluitInput = z
  .object({
    identificatie: text(50).optional(),
    verantwoordelijkeOrganisatie: rsin,
    besluittype: url.max(200),
    zaak: z
      .union([blank, url.max(200)])
      .nullable()
      .optional(),
    datum: date,
    toelichting: z.string().optional(),
    bestuursorgaan: text(50).optional(),
    ingangsdatum: date,
    vervaldatum: date.nullable().optional(),
    vervalreden: z.union([VERVALREDEN, blank]).optional(),
    publicatiedatum: date.nullable().optional(),
    verzenddatum: date.nullable().optional(),
    uiterlijkeReactiedatum: date.nullable().optional(),
  })
  .meta({ id: 'BesluitRequest' });

export const Besluit = BesluitInput.extend({
  url,
  identificatie: z.string(),
  zaak: z.union([blank, url]),
  toelichting: z.string(),
  bestuursorgaan: z.string(),
  vervaldatum: date.nullable(),
  vervalreden: z.union([VERVALREDEN, blank]),
  vervalredenWeergave: z.string(),
  publicatiedatum: date.nullable(),
  verzenddatum: date.nullable(),
  uiterlijkeReactiedatum: date.nullable(),
  _expand: z.record(z.string(), z.unknown()).optional(),
}).meta({ id: 'Besluit' });

/** A besluit as stored: `vervalredenWeergave` is made from `vervalreden` at read time. */
export type BesluitDoc = StoredFields<typeof Besluit, 'vervalredenWeergave'>;

export const BesluitQuery = z.object({
  identificatie: z.string().optional(),
  verantwoordelijkeOrganisatie: z.string().optional(),
  besluittype: urlFilter,
  zaak: urlFilter,
  expand: expandParam(EXPANDABLE.besluit),
});
export const BesluitReadQuery = z.object({ expand: expandParam(EXPANDABLE.besluit) });

// ---------------------------------------------------------------- BesluitInformatieObject

export const BesluitInformatieObjectInput = z.object({ informatieobject: url.min(1), besluit: url }).meta({ id: 'BesluitInformatieObjectRequest' });

export const BesluitInformatieObject = BesluitInformatieObjectInput.extend({
  url,
  _expand: z.record(z.string(), z.unknown()).optional(),
}).meta({ id: 'BesluitInformatieObject' });

/** A besluitinformatieobject as stored, with its besluit's besluittype (PART_AUTH_FIELD) and uuid. */
export type BesluitInformatieObjectDoc = StoredFields<typeof BesluitInformatieObject> & { _besluittype: string; _besluitUuid: string };

export const BesluitInformatieObjectQuery = z.object({
  besluit: urlFilter,
  informatieobject: urlFilter,
  expand: expandParam(EXPANDABLE.besluitinformatieobject),
});
export const BesluitInformatieObjectReadQuery = z.object({ expand: expandParam(EXPANDABLE.besluitinformatieobject) });

export { AuditTrail } from '../../common/platform/audittrail';

// ---------------------------------------------------------------- Besluiten 1.1.0

/** The versions served: 1.0.2 (the default), and 1.1.0 on request (`Api-Version: 1.1`), which declares `expand`. */
export const V102 = '1.0.2';
export const V11 = '1.1.0';

/** 1.1.0's Besluit without `_expand` (only its list and detail answers have it); the Zaken 1.7 file embeds it. */
const Besluit11 = Besluit.omit({ _expand: true }).meta({ id: `Besluit@${V11}` });
lend(`Besluit@${V11}`, Besluit11);

/** A besluit as 1.1.0's lists and details answer it: its besluittype and zaak expanded as the file names them. */
export const BesluitExpanded11 = expandedOf(Besluit11, 'Besluit', {
  besluittype: borrowed('BesluitTypeExpanded@1.3.2'),
  zaak: borrowed('ZaakExpanded@1.6.0'),
});
export const BesluitInformatieObjectExpanded11 = expandedOf(BesluitInformatieObject.omit({ _expand: true }), 'BesluitInformatieObject', {
  informatieobject: borrowed('EnkelvoudigInformatieObjectExpanded@1.6.0'),
  besluit: toOne(BesluitExpanded11),
});

/** The inputs as parsed (what the resources' prepare receives). */
export type BesluitIn = z.output<typeof BesluitInput>;
export type BesluitInformatieObjectIn = z.output<typeof BesluitInformatieObjectInput>;
