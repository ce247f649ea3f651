import type { FastifyRequest } from 'fastify';
import type { Document } from 'mongodb';
import { z } from 'zod';
import { expandObjects, expandParam, expandTree } from '../../common/resources/expand';
import type { Answer, AnyQuery, Resource, ResourceDef, ResourceVariant } from '../../common/platform/resource';
import type { Catalogi } from './context';
import { EXPANDABLE, Expanded, V133 } from './schemas';

/** Every Catalogi resource. */
export function resourcesOf(c: Catalogi): Resource<Document>[] {
  return [
    c.catalogussen,
    c.zaaktypen,
    c.statustypen,
    c.roltypen,
    c.resultaattypen,
    c.eigenschappen,
    c.zaakobjecttypen,
    c.informatieobjecttypen,
    c.besluittypen,
    c.ziot,
  ];
}

/**
 * The API views of those of `urls` that are this platform's Catalogi objects, as the newest version shows them: each
 * rendered once until the next Catalogi write, and handed out as a copy its reader may add `_expand` to.
 */
export async function views(c: Catalogi, urls: readonly string[]): Promise<Map<string, Answer<object>>> {
  const out = new Map<string, Answer<object>>();
  const resources = resourcesOf(c);
  await Promise.all(
    [...new Set(urls)].map(async (url) => {
      const r = resources.find((res) => res.uuidOf(url));
      if (!r) return;
      const rendered = await c.api.cached(`expand:${url}@`, async () => {
        const doc = await r.store.get(r.uuidOf(url)!);
        return doc ? r.toApi(doc) : null;
      });
      if (rendered) out.set(url, structuredClone(rendered));
    }),
  );
  return out;
}

/** Whether a Catalogi object is rendered for a 1.3.3 reader (a 1.3.3 request, or another component embedding it). */
export function in133(c: Catalogi, req: FastifyRequest | undefined): boolean {
  return c.api.atLeast(c.api.versionFor(req), V133);
}

/**
 * A type in Catalogi 1.3.3: its shape there, its list and detail answers with `_expand` (`ZaakTypeExpanded`, ...),
 * the `expand` parameter on both, and the expansion itself (any link field of the objects expanded, to any of the
 * standard's depths, each object as the newest version shows it).
 */
export function served133<D extends Document, Q extends object = AnyQuery, RQ extends object = AnyQuery>(
  c: Catalogi,
  name: keyof typeof EXPANDABLE,
  v: Omit<ResourceVariant<Q, RQ>, 'query' | 'readQuery'> & {
    query: ResourceVariant<Q, RQ>['query'] & object;
    readQuery?: ResourceVariant<Q, RQ>['readQuery'];
  },
): Pick<ResourceDef<D, unknown, Q, RQ>, 'variants' | 'expand'> {
  const expand = expandParam(EXPANDABLE[name]);
  // (a schema that gives Q, with `expand` beside its fields, gives Q too; so does an empty one where RQ has none)
  const readQuery: z.ZodObject = v.readQuery ?? z.object({});
  return {
    variants: {
      [V133]: {
        ...v,
        expanded: Expanded[name],
        query: v.query.extend({ expand }) as z.ZodObject & z.ZodType<Q>,
        readQuery: readQuery.extend({ expand }) as z.ZodObject & z.ZodType<RQ>,
        declared: v.declared && { ...v.declared, readQuery: v.declared.readQuery?.extend({ expand }) },
      },
    },
    expand: (bodies, query) => expandObjects((urls) => views(c, urls), bodies, expandTree('expand' in query ? query.expand : undefined)),
  };
}
