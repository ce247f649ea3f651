import type { ComponentApi } from '../../common/platform/component';

const cache = new WeakMap<readonly ComponentApi[], { n: number; scopes: Map<string, string[]> }>();

/**
 * The scopes each component's operations ask for (by Autorisaties component code: zrc, drc, ...), read from the
 * OpenAPI documents it serves, so the editor offers exactly what the APIs check.
 */
export function scopesByComponent(apis: readonly ComponentApi[]): Map<string, string[]> {
  const hit = cache.get(apis);
  if (hit && hit.n === apis.length) return hit.scopes;
  const out = new Map<string, string[]>();
  for (const api of apis) {
    const found = new Set<string>(out.get(api.def.code) ?? []);
    for (const doc of api.docs.values()) {
      const paths = (JSON.parse(doc.json()) as { paths?: Record<string, Record<string, { security?: Record<string, string[]>[] }>> }).paths ?? {};
      for (const ops of Object.values(paths)) {
        for (const op of Object.values(ops)) {
          for (const req of op.security ?? []) {
            for (const expr of Object.values(req)) for (const s of expr.flatMap(splitScopes)) found.add(s);
          }
        }
      }
    }
    out.set(api.def.code, [...found].sort());
  }
  cache.set(apis, { n: apis.length, scopes: out });
  return out;
}

/** `(zaken.bijwerken | zaken.geforceerd-bijwerken)` -> both scopes. */
export function splitScopes(expression: string): string[] {
  return expression
    .replace(/[()]/g, ' ')
    .split('|')
    .map((s) => s.trim())
    .filter(Boolean);
}
