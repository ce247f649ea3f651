import { z } from 'zod';
import { ZgwError } from './errors';

export const PAGE_SIZE = 100;

/** The query parameters of every paginated list: `page`, and the continuation its `next`/`previous` links carry. */
export const PageQuery = z.object({
  page: z.string().optional(),
  cursor: z
    .string()
    .optional()
    .describe('Vervolg van de vorige pagina; de links `next` en `previous` zetten het, een client hoeft het niet zelf te maken.'),
});

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** The schema of a page of `item`s, as the documents declare every paginated list. */
export function pageOf(item: z.ZodType) {
  return z.object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(item) });
}

export function parsePage(raw: unknown): number {
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ZgwError(404, 'not_found', 'Ongeldige pagina.');
  return n;
}

/** The continuations of the neighbouring pages (see Store.page). */
export interface Continuations {
  next?: string;
  previous?: string;
}

/**
 * The paginated envelope; next/previous keep every other query parameter of the request and carry the continuation
 * of the neighbouring page, so following them is an index seek at any depth. A page past the end is 404, except one
 * reached by a continuation (the documents after it may have been deleted meanwhile): that is an empty last page.
 */
export function envelope<T>(requestUrl: string, page: number, count: number, results: T[], cont: Continuations = {}, size = PAGE_SIZE): Page<T> {
  const u = new URL(requestUrl);
  if (page > 1 && results.length === 0 && !u.searchParams.get('cursor')) throw new ZgwError(404, 'not_found', 'Ongeldige pagina.');
  const link = (p: number, cursor: string | undefined): string => {
    const l = new URL(u);
    l.searchParams.set('page', String(p));
    if (cursor) l.searchParams.set('cursor', cursor);
    else l.searchParams.delete('cursor');
    return l.toString();
  };
  return {
    count,
    next: page * size < count && results.length ? link(page + 1, cont.next) : null,
    previous: page > 1 ? link(page - 1, page > 2 ? cont.previous : undefined) : null,
    results,
  };
}
