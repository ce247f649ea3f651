import { ZgwError } from './errors';

export const PAGE_SIZE = 100;

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function parsePage(raw: unknown): number {
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ZgwError(404, 'not_found', 'Ongeldige pagina.');
  return n;
}

/** The paginated envelope; next/previous keep every other query parameter of the request. */
export function envelope<T>(requestUrl: string, page: number, count: number, results: T[]): Page<T> {
  if (page > 1 && results.length === 0) throw new ZgwError(404, 'not_found', 'Ongeldige pagina.');
  const link = (p: number): string => {
    const u = new URL(requestUrl);
    u.searchParams.set('page', String(p));
    return u.toString();
  };
  return {
    count,
    next: page * PAGE_SIZE < count ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    results,
  };
}
