import type { FastifyReply } from 'fastify';
import { html, type Html } from '../../common/http/html';
import { REFERENCE_PATH } from '../../reference';

export const UI = '/admin';
export const REFERENCE = REFERENCE_PATH;

/** What every admin page sends besides its body: no caching, no framing, scripts and styles only from here. */
export const PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

export interface PageOptions {
  title: string;
  /** The logged-in administrator and the session's CSRF token (absent on the login page). */
  user?: string;
  csrf?: string;
  /** Which navigation entry is current. */
  nav?:
    | 'applicaties'
    | 'catalogi'
    | 'abonnementen'
    | 'overdrachten'
    | 'archief'
    | 'vernietigingslijsten'
    | 'audit'
    | 'beheerders'
    | 'organisaties'
    | 'importen'
    | 'wachtwoord'
    | 'home';
  notice?: string;
  /** The page reloads itself after this many seconds (a job under way). */
  refresh?: number;
  errors?: string[];
  status?: number;
}

const NAV: [NonNullable<PageOptions['nav']>, string, string][] = [
  ['applicaties', `${UI}/applicaties`, 'Applicaties'],
  ['catalogi', `${UI}/catalogi`, 'Catalogi'],
  ['abonnementen', `${UI}/abonnementen`, 'Abonnementen'],
  ['overdrachten', `${UI}/overdrachten`, 'Overdrachten'],
  ['archief', `${UI}/archief`, 'Archief'],
  ['vernietigingslijsten', `${UI}/vernietigingslijsten`, 'Vernietiging'],
  ['audit', `${UI}/audit`, 'Audit'],
  ['beheerders', `${UI}/beheerders`, 'Beheerders'],
];
/** Only platform administrators see the organisations (tenants). */
const PLATFORM_NAV: typeof NAV = [
  ['organisaties', `${UI}/organisaties`, 'Organisaties'],
  ['importen', `${UI}/importen`, 'Importen'],
];

/** Whose page it is: the organisation the session manages, and whether it is a platform administrator's. */
export interface Managing {
  tenant: string;
  platform: boolean;
}

export function csrfField(csrf: string | undefined): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf ?? ''}">`;
}

export function layout(opts: PageOptions, body: Html, managing?: Managing): Html {
  const entries = managing?.platform ? [...NAV, ...PLATFORM_NAV] : NAV;
  const tenant = managing
    ? html`<span class="tenant" title="De organisatie (RSIN) die u beheert">${managing.platform ? html`<a href="${UI}/organisaties">${managing.tenant}</a>` : managing.tenant}</span>`
    : '';
  const nav = opts.user
    ? html`<nav aria-label="Hoofdmenu">${entries.map(([key, href, label]) => html`<a href="${href}"${opts.nav === key ? html` aria-current="page"` : ''}>${label}</a>`)}<a href="${REFERENCE}">API-referentie</a></nav>
      ${tenant}<form class="session" method="post" action="${UI}/logout">${csrfField(opts.csrf)}<a href="${UI}/wachtwoord" title="Wachtwoord wijzigen">${opts.user}</a><button type="submit">Uitloggen</button></form>`
    : html`<nav aria-label="Hoofdmenu"><a href="${REFERENCE}">API-referentie</a></nav>`;
  return html`<!doctype html>
<html lang="nl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · ZGW beheer</title>
${opts.refresh ? html`<meta http-equiv="refresh" content="${opts.refresh}">` : ''}
<link rel="stylesheet" href="${UI}/static/admin.css">
<script src="${UI}/static/admin.js" defer></script>
</head>
<body>
<header><a class="brand" href="${UI}/">ZGW beheer</a>${nav}</header>
<main>
<h1>${opts.title}</h1>
${opts.notice ? html`<p class="notice" role="status">${opts.notice}</p>` : ''}
${opts.errors?.length ? html`<div class="errors" role="alert"><ul>${opts.errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}
${body}
</main>
</body>
</html>
`;
}

export function sendPage(reply: FastifyReply, opts: PageOptions, body: Html): FastifyReply {
  const managing = reply.request.adminSession;
  return reply
    .code(opts.status ?? 200)
    .headers(PAGE_HEADERS)
    .type('text/html; charset=utf-8')
    .send(layout(opts, body, managing).value);
}

/** After a successful POST: see the result with a GET (a reload does not send the form again). */
export function redirect(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('Location', to).header('Cache-Control', 'no-store').send();
}

/** Previous/next links of a paginated list (`cursor` continues from the page shown, as the APIs' links do). */
export function pager(
  path: string,
  params: Record<string, string | undefined>,
  page: number,
  count: number,
  size: number,
  cont: { next?: string; previous?: string },
): Html {
  const link = (p: number, cursor?: string) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
    q.set('page', String(p));
    if (cursor) q.set('cursor', cursor);
    return `${path}?${q.toString()}`;
  };
  const pages = Math.max(1, Math.ceil(count / size));
  const prev = page > 1 ? html`<a rel="prev" href="${link(page - 1, page > 2 ? cont.previous : undefined)}">« Vorige</a>` : html`<span></span>`;
  const next = page < pages && cont.next ? html`<a rel="next" href="${link(page + 1, cont.next)}">Volgende »</a>` : html`<span></span>`;
  return html`<nav class="pager" aria-label="Pagina's">${prev}<span>Pagina ${page} van ${pages} (${count} in totaal)</span>${next}</nav>`;
}

/** A page of an admin endpoint's list. */
export interface PageOf<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** Previous/next links that carry the endpoint's own continuation (page and cursor of its next/previous links). */
export function apiPager(path: string, list: PageOf<unknown>, rawPage: string | undefined, keep: Record<string, string> = {}): Html {
  const page = Math.max(1, Number(rawPage) || 1);
  const link = (api: string | null) => {
    if (!api) return undefined;
    const from = new URL(api, 'http://x').searchParams;
    const q = new URLSearchParams(keep);
    for (const k of ['page', 'cursor']) {
      const v = from.get(k);
      if (v) q.set(k, v);
    }
    return `${path}?${q.toString()}`;
  };
  const prev = link(list.previous);
  const next = link(list.next);
  const pages = Math.max(1, Math.ceil(list.count / Math.max(1, list.results.length || 1)));
  return html`<nav class="pager" aria-label="Pagina's">${prev ? html`<a rel="prev" href="${prev}">« Vorige</a>` : html`<span></span>`}<span>Pagina ${page}${list.next || page > 1 ? '' : html` van ${pages}`} (${list.count} in totaal)</span>${next ? html`<a rel="next" href="${next}">Volgende »</a>` : html`<span></span>`}</nav>`;
}
