import type { FastifyRequest } from 'fastify';
import type { Document, Filter } from 'mongodb';
import type { Caller } from '../../common/auth/auth';
import {
  MAX_EXPAND_DEPTH,
  fieldOf,
  isAnswerObject,
  parseExpandTree,
  urlsIn,
  type ExpandedAnswer,
  type ExpandTree,
} from '../../common/resources/expand';
import { ZgwError } from '../../common/http/errors';
import { LEZEN, mayOnDocument, readyFilter, type Documenten } from './context';

/**
 * `expand` on the Documenten lists and details: comma-separated link fields, nested with dots. A document expands
 * its informatieobjecttype; gebruiksrechten, objectinformatieobjecten and verzendingen their informatieobject; deeper
 * levels follow any link field of the expanded object (Catalogi objects in-process, other URLs fetched). Results sit
 * in `_expand`: a to-one link as the object (`{}` when empty), a to-many link as an array.
 */
export function parseExpand(raw: unknown, allowed: readonly string[]): ExpandTree | undefined {
  return parseExpandTree(raw, allowed, MAX_EXPAND_DEPTH, invalid);
}

function invalid(reason: string): ZgwError {
  return ZgwError.field('expand', 'invalid-expand-field', reason);
}

/**
 * Loads objects by URL: documents (only those the caller may read, in the request's version), Catalogi objects, and
 * anything else fetched.
 */
async function load(d: Documenten, caller: Caller, urls: string[], req?: FastifyRequest): Promise<Map<string, ExpandedAnswer>> {
  const out = new Map<string, ExpandedAnswer>();
  await Promise.all(
    [...new Set(urls)].map(async (u) => {
      const eioId = d.informatieobjecten.uuidOf(u);
      if (eioId) {
        const doc = await d.informatieobjecten.store.findOne({ _id: eioId, ...readyFilter(caller) } as Filter<Document>);
        if (doc && mayOnDocument(caller, doc, [LEZEN])) out.set(u, await d.informatieobjecten.toApi(doc, undefined, req));
        return;
      }
      const catalogi = (await d.catalogi.views([u])).get(u);
      if (catalogi) return void out.set(u, catalogi);
      const { status, body } = await d.api.deps.fetchJson(u);
      if (status === 200 && isAnswerObject(body)) out.set(u, body);
    }),
  );
  return out;
}

/** Adds `_expand` to every object (in place), following `tree`; documents show as `req`'s version shows them. */
export async function expandDocuments(
  d: Documenten,
  caller: Caller,
  objects: readonly ExpandedAnswer[],
  tree: ExpandTree | undefined,
  req?: FastifyRequest,
  depth = 1,
): Promise<void> {
  if (!tree || !objects.length) return;
  for (const obj of objects) obj._expand ??= {};
  for (const [field, sub] of Object.entries(tree)) {
    if (depth > 1 && !objects.some((o) => field in o)) throw invalid(`"${field}" is geen veld van de uitgeklapte objecten.`);
    const found = await load(
      d,
      caller,
      objects.flatMap((o) => urlsIn(fieldOf(o, field))),
      req,
    );
    const children = [...new Set(found.values())];
    if (Object.keys(sub).length && children.length) await expandDocuments(d, caller, children, sub, req, depth + 1);
    for (const obj of objects) {
      const value = fieldOf(obj, field);
      const list = urlsIn(value)
        .map((u) => found.get(u))
        .filter((x) => x !== undefined);
      obj._expand![field] = Array.isArray(value) ? list : (list[0] ?? {});
    }
  }
}
