import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ComponentApi, Deps } from '../common/component';
import { html } from '../common/html';
import { renderReference, type OpenApiDocument } from './render';
import { REFERENCE_CSS } from './style';

export const REFERENCE_PATH = '/api-referentie';

const HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/**
 * The browsable API reference: `/api-referentie` lists the components, `/api-referentie/<component>` renders the
 * OpenAPI document of its default version and `/api-referentie/<component>/<version>` that of each version served.
 * Rendered here from the documents the components serve (no script, nothing from elsewhere), so it works offline
 * and always matches the API. No token needed, as for the OpenAPI documents themselves.
 */
export function registerApiReference(app: FastifyInstance, deps: Deps, apis: readonly ComponentApi[]): void {
  const pages = new Map<string, string>();
  const byName = (name: string) => apis.find((a) => a.def.name === name);
  const send = (reply: FastifyReply, body: string) => reply.headers(HEADERS).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(body);
  const notFound = (reply: FastifyReply, what: string) =>
    reply
      .code(404)
      .headers(HEADERS)
      .type('text/html; charset=utf-8')
      .send(page('Niet gevonden', html`<p>${what}</p><p><a href="${REFERENCE_PATH}">Alle API's</a></p>`));

  const page = (title: string, body: ReturnType<typeof html>) =>
    html`<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<link rel="stylesheet" href="${REFERENCE_PATH}/static/reference.css"></head>
<body><header><a href="${REFERENCE_PATH}">API-referentie</a></header><main class="narrow"><h1>${title}</h1>${body}</main></body></html>
`.value;

  app.get(`${REFERENCE_PATH}/static/reference.css`, async (_req, reply) =>
    reply.header('Cache-Control', 'public, max-age=3600').header('X-Content-Type-Options', 'nosniff').type('text/css; charset=utf-8').send(REFERENCE_CSS),
  );

  app.get(REFERENCE_PATH, async (_req, reply) => {
    const rows = apis.map((a) => {
      const versions = [...a.docs.keys()];
      return html`<tr><td><a href="${REFERENCE_PATH}/${a.def.name}">${a.def.title}</a></td><td><code>${a.base.slice(deps.urls.base.length)}</code></td>
<td>${versions.map((v, i) => html`${i ? ' · ' : ''}<a href="${REFERENCE_PATH}/${a.def.name}/${v}">${v}</a>${v === a.defaultVersion && versions.length > 1 ? ' (standaard)' : ''}`)}</td>
<td><a href="${a.base}/schema/openapi.yaml">yaml</a> · <a href="${a.base}/schema/openapi.json">json</a></td></tr>`;
    });
    return send(
      reply,
      page(
        "API-referentie",
        html`<p>De OpenAPI-documenten van elk component van dit platform, als leesbare referentie. Ze worden gemaakt uit dezelfde schema's die de verzoeken valideren.</p>
<table><thead><tr><th>API</th><th>Pad</th><th>Versies</th><th>OpenAPI</th></tr></thead><tbody>${rows}</tbody></table>
<p class="meta">Beheerders: <a href="/admin/">beheerschermen</a>.</p>`,
      ),
    );
  });

  const render = (api: ComponentApi, version: string) => {
    const key = `${api.def.name}@${version}`;
    let out = pages.get(key);
    if (!out) {
      const doc = JSON.parse(api.docs.get(version)!.json()) as OpenApiDocument;
      const versions = [...api.docs.keys()];
      const schemaBase = versions.length > 1 ? `${api.base}/schema/${version}` : `${api.base}/schema`;
      out = renderReference(doc, {
        index: REFERENCE_PATH,
        json: `${schemaBase}/openapi.json`,
        yaml: `${schemaBase}/openapi.yaml`,
        versions: versions.map((v) => ({ version: v, href: `${REFERENCE_PATH}/${api.def.name}/${v}`, current: v === version })),
      }).value;
      pages.set(key, out);
    }
    return out;
  };

  app.get<{ Params: { component: string } }>(`${REFERENCE_PATH}/:component`, async (req, reply) => {
    const api = byName(req.params.component);
    if (!api) return notFound(reply, 'Dit platform heeft geen component met deze naam.');
    return send(reply, render(api, api.defaultVersion));
  });

  app.get<{ Params: { component: string; version: string } }>(`${REFERENCE_PATH}/:component/:version`, async (req, reply) => {
    const api = byName(req.params.component);
    if (!api) return notFound(reply, 'Dit platform heeft geen component met deze naam.');
    if (!api.docs.has(req.params.version)) return notFound(reply, `Deze versie wordt niet geserveerd; er zijn ${[...api.docs.keys()].join(', ')}.`);
    return send(reply, render(api, req.params.version));
  });
}
