import { z } from 'zod';

/**
 * Response schemas the components lend each other for what their documents declare in `_expand` (a Documenten 1.7
 * document embeds the Catalogi informatieobjecttype, a Besluiten 1.1 document the zaak). A component never imports
 * another's files: the owner lends its schema under the standard's name when its module loads, the borrower refers
 * to it lazily, so the documents (built on their first request) find every component's schemas, in any order and
 * through cycles (a zaak embeds its besluiten, a besluit its zaak).
 */
const lent = new Map<string, z.ZodType>();

/** A free-form object: what a borrowed schema is when its owner is not part of this platform. */
const FREE = z.object({}).catchall(z.unknown());

export function lend(name: string, schema: z.ZodType): void {
  lent.set(name, schema);
}

export function borrowed(name: string): z.ZodType {
  return z.lazy(() => lent.get(name) ?? FREE);
}

/** `{}`: what an expanded to-one link is when it is empty. */
export const EmptyObject = z
  .object({})
  .meta({ id: 'EmptyObject', description: 'Leeg object. Dit wordt teruggeven indien het te expanderen veld een null waarde heeft.' });

/** A to-one link as it is expanded: the object, or `{}` when the link is empty. */
export const toOne = (schema: z.ZodType) => z.union([schema, EmptyObject]);

/**
 * `<name>Expanded` (with `tag`, the version its id carries): a resource as its list and detail answer it, with the
 * `_expand` (`<name>Embedded`) that holds the expanded objects of its link fields, each optional.
 */
export function expandedOf(schema: z.ZodObject, name: string, embedded: Record<string, z.ZodType>, tag = ''): z.ZodObject {
  const fields = Object.fromEntries(Object.entries(embedded).map(([field, expanded]) => [field, expanded.optional()]));
  return schema
    .extend({
      _expand: z
        .object(fields)
        .meta({ id: `${name}Embedded${tag}` })
        .optional(),
    })
    .meta({ id: `${name}Expanded${tag}` });
}
