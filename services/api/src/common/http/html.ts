/**
 * HTML built only through the `html` template tag: every interpolated value is escaped unless it is itself `Html`
 * made by the tag (or by `raw` from a constant of ours). Pages therefore cannot carry a client id, label, URL or
 * error message as markup, wherever it came from.
 */
export class Html {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text made safe for element content and for quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** Markup of our own (constants in code), never anything that came from a request or the database. */
export function raw(markup: string): Html {
  return new Html(markup);
}

/**
 * A URL for an href: only http(s) and paths of this host, so a stored `javascript:` URL cannot become a link that
 * runs script. Anything else is shown as text by the caller.
 */
export function safeHref(url: string): string | undefined {
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}
