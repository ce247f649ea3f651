import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ComponentApi, Deps } from '../common/platform/component';
import { html } from '../common/http/html';
import { asyncApiTexts, TOPICS } from './asyncapi';
import { renderReference, schemaBody, type OpenApiDocument, type Schema } from './render';
import { REFERENCE_CSS } from './style';

export const REFERENCE_PATH = '/api-referentie';

const HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
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
  const send = (reply: FastifyReply, body: string) =>
    reply.headers(HEADERS).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(body);
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
    reply
      .header('Cache-Control', 'public, max-age=3600')
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/css; charset=utf-8')
      .send(REFERENCE_CSS),
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
        'API-referentie',
        html`<p>De OpenAPI-documenten van elk component van dit platform, als leesbare referentie. Ze worden gemaakt uit dezelfde schema's die de verzoeken valideren.</p>
<table><thead><tr><th>API</th><th>Pad</th><th>Versies</th><th>OpenAPI</th></tr></thead><tbody>${rows}</tbody></table>
<h2>Kafka-topics</h2>
<p>De berichten die het platform op Kafka publiceert (notificaties per kanaal, de audit trail): <a href="${REFERENCE_PATH}/asyncapi">AsyncAPI-referentie</a> (<a href="/asyncapi.yaml">yaml</a> · <a href="/asyncapi.json">json</a>).</p>
<p class="meta">Beheerders: <a href="/admin/">beheerschermen</a>.</p>`,
      ),
    );
  });

  // The Kafka topics: the AsyncAPI document (no token, like the OpenAPI documents) and its page.
  // made on first request, not at every start
  let asyncApi: ReturnType<typeof asyncApiTexts> | undefined;
  const texts = () => (asyncApi ??= asyncApiTexts(deps.config));
  app.get('/asyncapi.json', async (_req, reply) => reply.type('application/json').send(texts().json));
  app.get('/asyncapi.yaml', async (_req, reply) => reply.type('application/yaml').send(texts().yaml));
  let asyncPage: string | undefined;
  app.get(`${REFERENCE_PATH}/asyncapi`, async (_req, reply) =>
    send(reply, (asyncPage ??= page('Kafka-topics (AsyncAPI)', asyncApiBody(texts().doc)))),
  );

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

/** The topics of the AsyncAPI document: address, what is on it, the CloudEvents headers and the payload's fields. */
function asyncApiBody(doc: Record<string, unknown>): ReturnType<typeof html> {
  const channels = doc.channels as Record<string, { address: string; description: string }>;
  const components = doc.components as { messages: Record<string, { headers: Schema }>; schemas: Record<string, Schema> };
  const rows = TOPICS.map((t) => {
    const message = components.messages[`${t.name}.${t.message}`]!;
    return html`<section id="topic-${t.name}"><h2><code>${channels[t.name]!.address}</code></h2><p>${t.description}</p>
<p class="meta">Bericht <code>${t.message}</code>, JSON. Sleutel: ${t.key}.</p>
<h3>Headers</h3>${schemaBody(message.headers, 1)}
<h3>Inhoud</h3>${schemaBody(components.schemas[t.message]!, 1)}</section>`;
  });
  return html`<p>${String((doc.info as { description: string }).description)}</p>
<p class="meta"><a href="/asyncapi.yaml">asyncapi.yaml</a> · <a href="/asyncapi.json">asyncapi.json</a></p>
<ul>${TOPICS.map((t) => html`<li><a href="#topic-${t.name}"><code>${channels[t.name]!.address}</code></a></li>`)}</ul>${rows}`;
}
