import { z } from 'zod';
import { ZgwError } from '../http/errors';
import type { ExpandTree, ExpandedAnswer, Expansion } from './expand';

/**
 * `fields` on `_zoek` (Zaken 1.7, zrc-029; Documenten 1.7 as Zaken 1.6 has it): the response fields to return. A
 * name keeps that field (`"*"`: every field); `{"<field>": [...]}` chooses the fields of that field's expansion, the
 * same way one level deeper. An expansion that `fields` does not mention is returned whole.
 */
export type FieldChoice = string | { [field: string]: FieldChoice[] };
const fieldName = z.string().min(1).max(100);
/** Nested as deep as an expansion goes (twenty levels), level by level: the OpenAPI document has no recursion here. */
const fieldChoice = (depth: number): z.ZodType<FieldChoice> =>
  depth === 0 ? fieldName : z.union([fieldName, z.record(fieldName, z.array(fieldChoice(depth - 1)).min(1))]);
export const FieldChoice = fieldChoice(5);
/** The `fields` member of a `_zoek` body. */
export const fieldsParam = z.array(FieldChoice).min(1);

export interface FieldTree {
  all: boolean;
  names: Set<string>;
  expanded: Map<string, FieldTree>;
}

function invalid(reason: string): ZgwError {
  return ZgwError.field('fields', 'invalid-fields', reason);
}

/** The expansion a choice names (Zaken 1.7: `{"zaaktype": [...]}` expands the zaaktype, and so on down). */
export function expansionOf(choices: readonly FieldChoice[]): ExpandTree {
  const tree: ExpandTree = {};
  for (const choice of choices) {
    if (typeof choice === 'string') continue;
    for (const [field, sub] of Object.entries(choice)) Object.assign((tree[field] ??= {}), expansionOf(sub));
  }
  return tree;
}

function build(choices: readonly FieldChoice[], tree: ExpandTree | undefined, known: ReadonlySet<string> | undefined, path: string): FieldTree {
  const out: FieldTree = { all: false, names: new Set(), expanded: new Map() };
  for (const choice of choices) {
    if (typeof choice === 'string') {
      if (choice === '*') out.all = true;
      else if (known && !known.has(choice)) throw invalid(`"${path}${choice}" is geen veld van dit object.`);
      else out.names.add(choice);
      continue;
    }
    for (const [field, sub] of Object.entries(choice)) {
      if (!tree?.[field]) throw invalid(`"${path}${field}" is niet uitgeklapt: noem het ook in expand.`);
      out.expanded.set(field, build(sub, tree[field], undefined, `${path}${field}.`));
    }
  }
  return out;
}

/** The field choice of a `_zoek` body, checked against the object's own fields (`known`) and the expansion asked for. */
export function parseFields(raw: unknown, tree: ExpandTree | undefined, known: ReadonlySet<string>): FieldTree | undefined {
  if (raw === undefined || raw === null) return undefined;
  return build(raw as FieldChoice[], tree, known, '');
}

/** The object with only the chosen fields (and its expansions reduced as chosen). */
export function chooseFields(obj: ExpandedAnswer, choice: FieldTree): ExpandedAnswer {
  // `"*"` with no choice below it is the object as it is (objects are rendered per request: nothing shares them).
  if (choice.all && !choice.expanded.size) return obj;
  const { _expand: expand, ...own } = obj;
  const out: ExpandedAnswer = choice.all ? own : Object.fromEntries(Object.entries(own).filter(([k]) => choice.names.has(k)));
  if (expand) {
    const reduced: Expansion = {};
    for (const [k, v] of Object.entries(expand)) {
      const sub = choice.expanded.get(k);
      if (!sub) reduced[k] = v;
      else reduced[k] = Array.isArray(v) ? v.map((x) => chooseFields(x, sub)) : chooseFields(v, sub);
    }
    out._expand = reduced;
  }
  return out;
}
