/**
 * The value at a dotted path (`_pii.inpBsn`, `realm_access.roles`) in a document or a token's claims: undefined where
 * a step is missing or not an object.
 */
export function valueAtPath(root: unknown, path: string): unknown {
  let at: unknown = root;
  for (const part of path.split('.')) {
    if (!at || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}
