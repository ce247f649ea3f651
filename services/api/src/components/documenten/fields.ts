import { ZgwError } from '../../common/errors';
import type { ExpandTree } from './expand';
import { EnkelvoudigInformatieObject17, type FieldChoice } from './schemas';
import type { JsonObject } from '../../common/schema-parts';

/**
 * `fields` on `_zoek` (1.7): the response fields to return. A name keeps that field of the document (`"*"`: every
 * field); `{"<field>": [...]}` chooses the fields of that field's expansion (which `expand` must name), the same way
 * one level deeper. An expansion that `fields` does not mention is returned whole.
 */
export interface FieldTree {
  all: boolean;
  names: Set<string>;
  expanded: Map<string, FieldTree>;
}

const DOCUMENT_FIELDS = new Set(Object.keys(EnkelvoudigInformatieObject17.shape).filter((k) => !k.startsWith('_')));

function invalid(reason: string): ZgwError {
  return ZgwError.field('fields', 'invalid-fields', reason);
}

function build(choices: FieldChoice[], tree: ExpandTree | undefined, known: Set<string> | undefined, path: string): FieldTree {
  const out: FieldTree = { all: false, names: new Set(), expanded: new Map() };
  for (const choice of choices) {
    if (typeof choice === 'string') {
      if (choice === '*') out.all = true;
      else if (known && !known.has(choice)) throw invalid(`"${path}${choice}" is geen veld van een document.`);
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

/** The field choice of a `_zoek` body, checked against the document's fields and the expansion asked for. */
export function parseFields(raw: unknown, tree: ExpandTree | undefined): FieldTree | undefined {
  if (raw === undefined || raw === null) return undefined;
  return build(raw as FieldChoice[], tree, DOCUMENT_FIELDS, '');
}

/** The object with only the chosen fields (and its expansions reduced as chosen). */
export function chooseFields(obj: JsonObject, choice: FieldTree): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (k !== '_expand' && (choice.all || choice.names.has(k))) out[k] = v;
  const expand = obj._expand as JsonObject | undefined;
  if (expand) {
    const reduced: JsonObject = {};
    for (const [k, v] of Object.entries(expand)) {
      const sub = choice.expanded.get(k);
      if (!sub) reduced[k] = v;
      else if (Array.isArray(v)) reduced[k] = v.map((x) => chooseFields(x as JsonObject, sub));
      else reduced[k] = v && typeof v === 'object' ? chooseFields(v as JsonObject, sub) : v;
    }
    out._expand = reduced;
  }
  return out;
}
