import { z } from 'zod';
import { ZgwError, type InvalidParam } from './errors';

/** The field path as ZGW names it: dotted camelCase segments, array indexes as numbers. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : 'nonFieldErrors';
}

function valueAt(input: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let cur: unknown = input;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object' || !(String(seg) in (cur as object))) return { present: false, value: undefined };
    cur = (cur as Record<string, unknown>)[String(seg)];
  }
  return { present: true, value: cur };
}

/** Translates one zod issue into the codes that ZGW clients (and the VNG tests) expect. */
function toParam(issue: z.core.$ZodIssue, input: unknown): InvalidParam {
  const name = fieldName(issue.path);
  const at = valueAt(input, issue.path);
  const custom = (issue as { params?: { code?: string } }).params?.code;
  if (custom) return { name, code: custom, reason: issue.message };
  // A missing field is `required` whatever its schema (an enum, a union of "" and a URL, ...).
  if (!at.present && issue.code !== 'unrecognized_keys') return { name, code: 'required', reason: 'Dit veld is vereist.' };
  switch (issue.code) {
    case 'invalid_type':
      if (!at.present || at.value === undefined) return { name, code: 'required', reason: 'Dit veld is vereist.' };
      if (at.value === null) return { name, code: 'null', reason: 'Dit veld mag niet leeg zijn.' };
      if (issue.expected === 'array') return { name, code: 'not_a_list', reason: `Verwachtte een lijst, maar kreeg ${typeof at.value}.` };
      return { name, code: 'invalid', reason: `Ongeldige waarde: verwacht ${issue.expected}.` };
    case 'too_big':
      if (issue.origin === 'string')
        return { name, code: 'max_length', reason: `Zorg ervoor dat dit veld niet meer dan ${issue.maximum} tekens bevat.` };
      if (issue.origin === 'array')
        return { name, code: 'max_length', reason: `Zorg ervoor dat deze lijst niet meer dan ${issue.maximum} elementen bevat.` };
      return { name, code: 'max_value', reason: `Zorg ervoor dat deze waarde kleiner is dan of gelijk aan ${issue.maximum}.` };
    case 'too_small':
      if (issue.origin === 'string') {
        if (at.value === '') return { name, code: 'blank', reason: 'Dit veld mag niet leeg zijn.' };
        return { name, code: 'min_length', reason: `Zorg ervoor dat dit veld minimaal ${issue.minimum} tekens bevat.` };
      }
      if (issue.origin === 'array') return { name, code: 'min_length', reason: `Deze lijst moet minimaal ${issue.minimum} elementen bevatten.` };
      return { name, code: 'min_value', reason: `Zorg ervoor dat deze waarde groter is dan of gelijk aan ${issue.minimum}.` };
    case 'invalid_value':
      // Only plain values are echoed: a (deeply nested) object or array is no choice at all.
      return {
        name,
        code: 'invalid_choice',
        reason: ['string', 'number', 'boolean'].includes(typeof at.value)
          ? `"${String(at.value)}" is een ongeldige keuze.`
          : 'Dit is geen geldige keuze.',
      };
    case 'invalid_format':
      if (issue.format === 'url') return { name, code: 'invalid', reason: 'Voer een geldige URL in.' };
      if (issue.format === 'date') return { name, code: 'invalid', reason: 'Datum heeft het verkeerde formaat, gebruik YYYY-MM-DD.' };
      if (issue.format === 'datetime') return { name, code: 'invalid', reason: 'Datetime heeft het verkeerde formaat.' };
      return { name, code: 'invalid', reason: issue.message };
    case 'unrecognized_keys':
      return { name, code: 'unknown_field', reason: `Onbekende velden: ${issue.keys.join(', ')}.` };
    default:
      return { name, code: 'invalid', reason: issue.message };
  }
}

export function invalidParams(error: z.ZodError, input: unknown): InvalidParam[] {
  return error.issues.map((i) => toParam(i, input));
}

/** A request body that must be a JSON object: as it is, or the 400 a ZGW API answers for any other (none, an array). */
export function jsonObject(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw ZgwError.field('nonFieldErrors', 'invalid', 'De request body moet een JSON object zijn.');
  return body as Record<string, unknown>;
}

/** Parses input with a zod schema or throws a 400 ZgwError naming every invalid field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const r = schema.safeParse(input);
  if (!r.success) throw ZgwError.validation(invalidParams(r.error, input));
  return r.data;
}

/**
 * Parses what another registration sends (the registration import: docs/moving-in.md) by what it means, not by the
 * standard's letter, then as parseOrThrow: a field that is `null` where the schema takes no null is absent (Open Zaak
 * sends `null` for every empty field of its models, `gezetdoor` of a status among them), so is `""` for a choice
 * that has no `""` (its models' `blank=True` choice fields: a zaak its ORM made sends `vertrouwelijkheidaanduiding:
 * ""`, a rol `indicatieMachtiging: ""`, a natuurlijk persoon `geslachtsaanduiding: ""`), and a field the schema does
 * not know is left out. A field the schema takes as null, or a choice that has `""`, keeps it. The input is not changed.
 */
export function parseLiberal<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  let data = input;
  let copied = false;
  for (let round = 0; round < 8; round++) {
    const r = schema.safeParse(data);
    if (r.success) return r.data;
    const drop: { path: readonly PropertyKey[]; keys: string[] }[] = [];
    for (const issue of r.error.issues) {
      if (issue.code === 'unrecognized_keys') drop.push({ path: issue.path, keys: issue.keys });
      else if (issue.path.length && (valueAt(data, issue.path).value === null || emptyChoice(issue, data)))
        drop.push({ path: issue.path.slice(0, -1), keys: [String(issue.path[issue.path.length - 1])] });
    }
    if (!drop.length) break;
    if (!copied) data = structuredClone(data);
    copied = true;
    for (const { path, keys } of drop) {
      const at = valueAt(data, path).value;
      if (at && typeof at === 'object' && !Array.isArray(at)) for (const k of keys) delete (at as Record<string, unknown>)[k];
    }
  }
  return parseOrThrow(schema, data);
}

/** Whether `issue` refuses `""` as no choice of an enum or literal (a choice field left empty). */
function emptyChoice(issue: z.core.$ZodIssue, data: unknown): boolean {
  return issue.code === 'invalid_value' && valueAt(data, issue.path).value === '';
}

/** The names a schema knows by their lower case (made once per schema). */
const lowerNames = new WeakMap<z.ZodObject, Map<string, string>>();
function namesOf(schema: z.ZodObject): Map<string, string> {
  let names = lowerNames.get(schema);
  if (!names) lowerNames.set(schema, (names = new Map(Object.keys(schema.shape).map((k) => [k.toLowerCase(), k]))));
  return names;
}

/**
 * The parameters a list (or a `_zoek` body) was given, each under the name its schema knows, matched
 * case-insensitively (clients of other implementations send `ClientIds` for `clientIds`). A name the schema does not
 * know is a 400 naming it: a list never widens because a filter was not understood.
 */
export function knownParams(schema: z.ZodType, input: unknown): unknown {
  if (!(schema instanceof z.ZodObject) || !input || typeof input !== 'object' || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const k in input) {
    if (!Object.hasOwn(input, k)) continue;
    const name = Object.hasOwn(schema.shape, k) ? k : namesOf(schema).get(k.toLowerCase());
    if (name) out[name] = (input as Record<string, unknown>)[k];
    else unknown.push(k);
  }
  if (unknown.length) {
    const known = Object.keys(schema.shape);
    const kent = known.length <= 30 ? ` Bekend: ${known.join(', ')}.` : '';
    throw ZgwError.validation(
      unknown.map((name) => ({ name: name.slice(0, 100), code: 'unknown-parameters', reason: `Onbekende parameter.${kent}` })),
      'Onbekende parameters.',
    );
  }
  return out;
}
