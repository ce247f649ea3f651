/** A submitted HTML form (application/x-www-form-urlencoded): repeated names become lists. */
export type Form = Record<string, string | string[]>;

export function parseForm(body: string): Form {
  const out: Form = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

export function formOf(body: unknown): Form {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Form) : {};
}

/** One field's value (the first, when sent more than once), trimmed. */
export function field(form: Form, name: string): string {
  const v = form[name];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();
}

/** Every value of a field (checkbox groups, multi-selects). */
export function fields(form: Form, name: string): string[] {
  const v = form[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((s) => s.trim()).filter(Boolean);
}

export function checked(form: Form, name: string): boolean {
  return form[name] !== undefined;
}

/** Lines of a textarea, trimmed, without empty ones. */
export function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}
