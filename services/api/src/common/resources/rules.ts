// Small pieces that every component's rules use alike: errors not tied to a field, fields that may not change,
// defaults of absent fields, and filters put together.
import type { Document, Filter } from 'mongodb';
import { ZgwError } from '../http/errors';
import { fieldOf } from './expand';

/** A refusal of the object as a whole (`nonFieldErrors`), with its code. */
export function nonField(code: string, reason: string): ZgwError {
  return ZgwError.field('nonFieldErrors', code, reason);
}

/** Fields that may not change after creation: `wijzigen-niet-toegelaten`. */
export function mustBeUnchanged(current: object | undefined, next: object, fields: readonly string[]): void {
  if (!current) return;
  const changed = fields.filter((f) => {
    const [was, wordt] = [fieldOf(current, f), fieldOf(next, f)];
    return wordt !== undefined && was !== undefined && wordt !== was;
  });
  if (changed.length) {
    throw ZgwError.validation(changed.map((name) => ({ name, code: 'wijzigen-niet-toegelaten', reason: `${name} mag niet gewijzigd worden.` })));
  }
}

/** Fills absent optional fields with the standard's empty values (a list a copy of its own), so reads show every field. */
export function withDefaults<T extends object, D extends object>(data: T, defaults: D): Defaulted<T, D> {
  const absent = Object.entries(defaults).filter(([k]) => fieldOf(data, k) === undefined);
  return { ...data, ...Object.fromEntries(absent.map(([k, v]) => [k, Array.isArray(v) ? [...(v as unknown[])] : v])) } as Defaulted<T, D>;
}

/** `data` with `defaults` where it has no value: each defaulted field is the data's type (defined) or the default's. */
export type Defaulted<T, D> = Omit<T, keyof D> & { [K in keyof D]-?: K extends keyof T ? Exclude<T[K], undefined> | D[K] : D[K] };

/** The conjunction of filters, leaving out empty ones. */
export function and(...parts: Filter<Document>[]): Filter<Document> {
  const real = parts.filter((p) => Object.keys(p).length);
  return real.length === 0 ? {} : real.length === 1 ? real[0]! : { $and: real };
}

/** Whether two filters are the same (a list filter that is just the autorisaties). */
export function sameFilter(a: Filter<Document>, b: Filter<Document>): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
