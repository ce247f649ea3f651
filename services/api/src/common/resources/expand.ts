import { z } from 'zod';

/**
 * `expand` (Catalogi 1.3.3, Besluiten 1.1.0, Documenten 1.7.0): comma-separated paths of link fields, nested with
 * dots, whose first segment is one the resource's file names. Every expanded object is its own endpoint's
 * representation; a to-one link becomes the object (`{}` when empty), a to-many link an array, and deeper levels sit
 * in the embedded object's own `_expand`, following any link field it has.
 */
export interface ExpandTree {
  [field: string]: ExpandTree;
}

/**
 * What an expansion embeds in an object, by link field: the object linked (`{}` when none) or the objects linked,
 * each as its endpoint answers it (this platform's rendering, another registration's JSON) with its own `_expand`.
 */
export type Expansion = { [field: string]: ExpandedAnswer | ExpandedAnswer[] };

/** An answered object as an expansion sees it: its URL and its `_expand` (the fields it follows are read by name: fieldOf). */
export type ExpandedAnswer = { url?: string; _expand?: Expansion };

/**
 * A field of an object by a name made at run time: a link field an expansion follows, a list filter whose name is
 * put together (`rol__betrokkeneType`, `onderwerp__icontains`).
 */
export function fieldOf(obj: object, field: string): unknown {
  return Reflect.get(obj, field) as unknown;
}

/** How deep `expand` follows links (`besluit.zaak.zaaktype` is three). */
export const MAX_EXPAND_DEPTH = 5;

const DESCRIPTION =
  'Haal details van gelinkte resources direct op. Als je meerdere resources tegelijk wilt ophalen kun je deze scheiden met een komma. Voor het ophalen van resources die een laag dieper genest zijn wordt de punt-notatie gebruikt.';

const pathsOf = (raw: string) =>
  raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

/** The link fields an expand may name first: a list, or a set (one a component keeps, not copied per request). */
type Allowed = readonly string[] | ReadonlySet<string>;

/**
 * Why a path cannot be expanded from a resource whose first level may name `allowed`, at most `max` levels deep;
 * undefined when it can.
 */
function refusal(path: string, allowed: Allowed, max = MAX_EXPAND_DEPTH): string | undefined {
  const parts = path.split('.');
  if (parts.length > max) return `"${path}" is dieper dan ${max} niveaus.`;
  const known = 'has' in allowed ? allowed.has(parts[0]!) : allowed.includes(parts[0]!);
  if (!known) return `"${parts[0]}" is geen uit te klappen veld; kies uit ${[...allowed].join(', ')}.`;
  if (parts.some((p) => !/^[A-Za-z][A-Za-z0-9_]*$/.test(p))) return `"${path}" is geen geldig expand-pad.`;
  return undefined;
}

/**
 * The `expand` query parameter of a resource whose first level may name `allowed`: a bad path is a 400
 * `invalid-expand-field` on `expand`, checked with the query (so a list without results refuses it too).
 */
export function expandParam(allowed: readonly string[]) {
  return z
    .string()
    .superRefine((raw, ctx) => {
      for (const path of pathsOf(raw)) {
        const reason = refusal(path, allowed);
        if (reason) ctx.addIssue({ code: 'custom', message: reason, params: { code: 'invalid-expand-field' } });
      }
    })
    .optional()
    .describe(DESCRIPTION);
}

/**
 * The tree of an `expand` value checked where the handler reads it (Zaken, whose answer to a bad path depends on the
 * version; Documenten): the first path that cannot be expanded throws `invalid(reason)`.
 */
export function parseExpandTree(raw: unknown, allowed: Allowed, max: number, invalid: (reason: string) => Error): ExpandTree | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string') throw invalid('expand moet een tekst zijn met komma-gescheiden paden.');
  for (const path of pathsOf(raw)) {
    const reason = refusal(path, allowed, max);
    if (reason) throw invalid(reason);
  }
  return expandTree(raw);
}

/** A tree as the paths of an expand parameter (`zaaktype.catalogus,status`), to check it as one. */
export function treePaths(tree: ExpandTree, prefix = ''): string {
  return Object.entries(tree)
    .map(([field, sub]) => (Object.keys(sub).length ? treePaths(sub, `${prefix}${field}.`) : `${prefix}${field}`))
    .join(',');
}

/** The tree of a checked `expand` value; undefined when there is nothing to expand. */
export function expandTree(raw: unknown): ExpandTree | undefined {
  if (typeof raw !== 'string' || !raw.trim()) return undefined;
  const tree: ExpandTree = {};
  for (const path of pathsOf(raw)) {
    let node = tree;
    for (const part of path.split('.')) node = node[part] ??= {};
  }
  return tree;
}

const isUrl = (v: unknown): v is string => typeof v === 'string' && /^https?:\/\//.test(v);

/**
 * The URLs a link field holds: a URL, a list of them, or objects that carry one (`gerelateerdeZaaktypen`:
 * `{zaaktype, aardRelatie}`, a relevanteAndereZaak: `{url, aardRelatie}`).
 */
export function urlsIn(value: unknown): string[] {
  const one = (v: unknown): string | undefined => {
    if (isUrl(v)) return v;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const url = fieldOf(v, 'url');
      return isUrl(url) ? url : Object.values(v).find(isUrl);
    }
    return undefined;
  };
  return (Array.isArray(value) ? value : [value]).map(one).filter((u): u is string => !!u);
}

/** Loads objects by URL, each a copy the expansion may add `_expand` to; what cannot be read is left out. */
export type ExpandLoader = (urls: string[]) => Promise<Map<string, ExpandedAnswer>>;

/** Whether a JSON answer (another registration's) is an object an expansion can embed. */
export function isAnswerObject(body: unknown): body is ExpandedAnswer {
  return !!body && typeof body === 'object' && !Array.isArray(body);
}

/** Adds `_expand` to every object (in place), following `tree`, one load per field and level. */
export async function expandObjects(load: ExpandLoader, objects: readonly ExpandedAnswer[], tree: ExpandTree | undefined): Promise<void> {
  if (!tree || !objects.length) return;
  for (const obj of objects) obj._expand ??= {};
  for (const [field, sub] of Object.entries(tree)) {
    const found = await load([...new Set(objects.flatMap((o) => urlsIn(fieldOf(o, field))))]);
    await expandObjects(load, [...new Set(found.values())], Object.keys(sub).length ? sub : undefined);
    for (const obj of objects) {
      const value = fieldOf(obj, field);
      const list = urlsIn(value).flatMap((u) => {
        const linked = found.get(u);
        return linked ? [linked] : [];
      });
      obj._expand![field] = Array.isArray(value) ? list : (list[0] ?? {});
    }
  }
}
