// Schema pieces that several components' zod schemas share: dates, date-times, URLs, the vertrouwelijkheid and the
// object types of the standard. One definition each, so every API validates and documents them alike.
import { z } from 'zod';
import { VERTROUWELIJKHEIDAANDUIDINGEN } from '../auth/vertrouwelijkheid';

export const date = z.iso.date();
/**
 * Date-times are accepted with or without an offset (without: UTC), and served in UTC. A date alone (`2019-08-24`,
 * as clients of other implementations send, and both peers accept) is the start of that day in the Netherlands.
 */
export const dateTime = z
  .union([z.iso.datetime({ offset: true }), z.iso.datetime({ local: true }), z.iso.date().transform(startOfDayInAmsterdam)])
  .transform(toUtc);
export const url = z.url().max(1000);

const AMSTERDAM_TIME = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Amsterdam', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** 00:00 of a date in Europe/Amsterdam (UTC+1 in winter, UTC+2 in summer; midnight is never in a clock change). */
export function startOfDayInAmsterdam(date: string): string {
  const summer = `${date}T00:00:00+02:00`;
  return AMSTERDAM_TIME.format(new Date(summer)) === '00:00' ? summer : `${date}T00:00:00+01:00`;
}

export function toUtc(value: string): string {
  const withZone = /([zZ]|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  return new Date(withZone).toISOString().replace('.000Z', 'Z');
}

export const VERTROUWELIJKHEID = z.enum(VERTROUWELIJKHEIDAANDUIDINGEN);

/** The object types of zaakobjecten (Zaken) and zaakobjecttypen (Catalogi). */
export const OBJECTTYPEN = [
  'adres',
  'besluit',
  'buurt',
  'enkelvoudig_document',
  'gemeente',
  'gemeentelijke_openbare_ruimte',
  'huishouden',
  'inrichtingselement',
  'kadastrale_onroerende_zaak',
  'kunstwerkdeel',
  'maatschappelijke_activiteit',
  'medewerker',
  'natuurlijk_persoon',
  'niet_natuurlijk_persoon',
  'openbare_ruimte',
  'organisatorische_eenheid',
  'pand',
  'spoorbaandeel',
  'status',
  'terreindeel',
  'terrein_gebouwd_object',
  'vestiging',
  'waterdeel',
  'wegdeel',
  'wijk',
  'woonplaats',
  'woz_deelobject',
  'woz_object',
  'woz_waarde',
  'zakelijk_recht',
  'overige',
] as const;

/**
 * What the store keeps of a resource, typed from the schema it is served by: its fields without `url` (made from
 * the `_id`), `_expand` and the fields computed at read time (`Computed`). Internal fields a component keeps beside
 * them (`_zaaktype`, ...) are added to this type where it is declared.
 */
export type StoredFields<S extends z.ZodType, Computed extends PropertyKey = never> = Omit<z.output<S>, 'url' | '_expand' | Computed>;

/**
 * A parameter that takes one of `values` where the standard's file declares something else (no enum for a boolean
 * query parameter or a free string; fewer values than the platform orders by): anything else is refused with
 * `invalid_choice`, and the document declares the parameter as the file does (`declared`: its `type`, or its `enum`).
 */
export function choiceOf(values: readonly [string, ...string[]], declared: { type?: 'string' | 'boolean'; enum?: readonly string[] } = {}) {
  return z
    .string()
    .refine((v) => values.includes(v), { message: `Kies uit: ${values.join(', ')}.`, params: { code: 'invalid_choice' } })
    .meta({ type: declared.type ?? 'string', ...(declared.enum ? { enum: [...declared.enum] } : {}) });
}

/** A boolean query parameter (`true`/`false`, as the standard's clients send it; `True`, `1` and `0` also). */
export const booleanParam = choiceOf(['true', 'false', 'True', 'False', '1', '0'], { type: 'boolean' });
