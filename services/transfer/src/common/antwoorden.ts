import { z } from 'zod';

/**
 * The answers of a ZGW system (this platform or another) as the worker reads them, parsed where they enter
 * (ZgwClient.get/all/find): the fields the worker decides on are typed, every other field is kept as it came (a
 * copy takes the writable fields with `pick`). An answer without them is the other system's fault: a permanent
 * error naming the field, never a wrong value further on.
 */
const url = z.string().min(1);
/** A link the standard allows to be empty ('' or null). */
const misschien = z.string().nullish();
const datum = z.string();

/** Any object of a ZGW API: it has its URL (an import hands the rest to this platform's rules unread). */
export const ZgwObject = z.looseObject({ url });
/** An object taken as it is (an audit trail entry, which has no URL of its own). */
export const Ruw = z.record(z.string(), z.unknown());
/** A page of a ZGW list, or a list that has no pages (a plain array). */
export const Lijst = <S extends z.ZodType>(item: S) =>
  z.union([
    z.array(item).transform((results) => ({ results, next: null, count: results.length })),
    z.object({ results: z.array(item), next: z.string().nullish(), count: z.number().optional() }),
  ]);

export const Zaak = z.looseObject({
  url,
  zaaktype: url,
  startdatum: datum,
  einddatum: misschien,
  resultaat: misschien,
  productenOfDiensten: z.array(z.string()).default([]),
  kenmerken: z.array(z.looseObject({ kenmerk: z.string(), bron: z.string() })).default([]),
  relevanteAndereZaken: z.array(z.looseObject({ url, aardRelatie: z.string() })).default([]),
});
export const Rol = z.looseObject({ url, roltype: url });
export const Status = z.looseObject({ url, statustype: url, datumStatusGezet: datum, gezetdoor: misschien });
export const Resultaat = z.looseObject({ url, resultaattype: url });
export const Zaakeigenschap = z.looseObject({ url, eigenschap: url, waarde: z.string() });
export const Zaakobject = z.looseObject({ url, zaakobjecttype: misschien });
export const Klantcontact = z.looseObject({ url });
export const Zaakinformatieobject = z.looseObject({ url, informatieobject: url });
export const Besluit = z.looseObject({ url, besluittype: url });
export const Besluitinformatieobject = z.looseObject({ url, informatieobject: url });
export const Informatieobject = z.looseObject({
  url,
  identificatie: z.string(),
  informatieobjecttype: url,
  inhoud: misschien,
  locked: z.boolean().default(false),
  lock: z.string().optional(),
  versie: z.number().optional(),
  bestandsomvang: z.number().nullish(),
});
export const Gebruiksrecht = z.looseObject({ url });
export const Zaaktype = z.looseObject({
  url,
  identificatie: z.string(),
  catalogus: url,
  concept: z.boolean().default(false),
  beginGeldigheid: datum,
  eindeGeldigheid: misschien,
  productenOfDiensten: z.array(z.string()).default([]),
});
export const Catalogus = z.looseObject({ url, rsin: z.string() });
/** A type of a zaaktype or catalogus (roltype, statustype, ...): matched on the text fields its kind names. */
export const Type = z.looseObject({ url });
export const Resultaattype = z.looseObject({ url, omschrijving: z.string() });
export const Statustype = z.looseObject({ url, omschrijving: z.string(), volgnummer: z.number() });
/** A document just announced with its size: the parts to send and the lock they are sent under. */
export const AangekondigdDocument = Informatieobject.extend({
  lock: z.string().min(1),
  bestandsdelen: z.array(z.looseObject({ url, volgnummer: z.number(), omvang: z.number() })).min(1),
});
/** An overdracht of this platform, as its Overdrachten API shows it. */
export const Overdracht = z.looseObject({ url, uuid: z.string(), status: z.string(), aanmaakdatum: z.string() });

export type Zaak = z.output<typeof Zaak>;
export type Rol = z.output<typeof Rol>;
export type Status = z.output<typeof Status>;
export type Resultaat = z.output<typeof Resultaat>;
export type Zaakeigenschap = z.output<typeof Zaakeigenschap>;
export type Zaakobject = z.output<typeof Zaakobject>;
export type Klantcontact = z.output<typeof Klantcontact>;
export type Zaakinformatieobject = z.output<typeof Zaakinformatieobject>;
export type Besluit = z.output<typeof Besluit>;
export type Besluitinformatieobject = z.output<typeof Besluitinformatieobject>;
export type Informatieobject = z.output<typeof Informatieobject>;
export type Type = z.output<typeof Type>;
export type ZgwObject = z.output<typeof ZgwObject>;
export type Ruw = z.output<typeof Ruw>;
