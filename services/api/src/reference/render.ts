import { html, safeHref, type Html } from '../common/http/html';

/** The parts of an OpenAPI 3.0 document the reference shows. */
export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  exclusiveMaximum?: boolean | number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  deprecated?: boolean;
  schema?: Schema;
  $ref?: string;
}

interface Media {
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, Media> };
  responses?: Record<
    string,
    { description?: string; content?: Record<string, Media>; headers?: Record<string, { description?: string; schema?: Schema }> }
  >;
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  openapi?: string;
  info?: { title?: string; version?: string; description?: string };
  servers?: { url: string }[];
  paths?: Record<string, Record<string, Operation | Parameter[]>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];

/** Where a reference page links to: its OpenAPI files and the pages of the component's other versions. */
export interface PageLinks {
  json: string;
  yaml: string;
  index: string;
  versions: { version: string; href: string; current: boolean }[];
}

/**
 * A readable reference of one OpenAPI document as one HTML page: operations grouped by resource (path), each with
 * its scopes, parameters, request body and responses, and every schema with its fields. No script; every text
 * from the document is escaped; links only to http(s) or this host.
 */
export function renderReference(doc: OpenApiDocument, links: PageLinks): Html {
  const title = doc.info?.title ?? 'API';
  const version = doc.info?.version ?? '';
  const ops = operations(doc);
  const groups = new Map<string, typeof ops>();
  for (const op of ops) {
    const g = op.path.split('/')[1] || '/';
    groups.set(g, [...(groups.get(g) ?? []), op]);
  }
  const schemas = Object.entries(doc.components?.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const toc = html`<nav class="toc" aria-label="Inhoud">
<p><a href="${links.index}">« Alle API's</a></p>
${[...groups].map(([g, list]) => html`<details open><summary>${g}</summary><ul>${list.map((o) => html`<li><a href="#${o.anchor}"><span class="m m-${o.method}">${o.method.toUpperCase()}</span> ${o.path}</a></li>`)}</ul></details>`)}
<details><summary>Schema's (${schemas.length})</summary><ul>${schemas.map(([name]) => html`<li><a href="#schema-${anchorOf(name)}">${name}</a></li>`)}</ul></details>
</nav>`;
  const body = html`<div class="intro">
<p class="meta">Versie <strong>${version}</strong>${doc.servers?.[0] ? html` · basis-URL <code>${doc.servers[0].url}</code>` : ''} · OpenAPI ${doc.openapi ?? ''}
 · <a href="${links.yaml}">openapi.yaml</a> · <a href="${links.json}">openapi.json</a></p>
${links.versions.length > 1 ? html`<p class="meta">Versies: ${links.versions.map((v, i) => html`${i ? ' · ' : ''}${v.current ? html`<strong>${v.version}</strong>` : html`<a href="${v.href}">${v.version}</a>`}`)}</p>` : ''}
${doc.info?.description ? html`<p>${markdownLite(doc.info.description)}</p>` : ''}
<p class="meta">Elke operatie vraagt een JWT (<code>Authorization: Bearer …</code>, HS256, met <code>client_id</code>) van een applicatie met een van de genoemde scopes.</p>
</div>
${[...groups].map(([g, list]) => html`<section class="group"><h2 id="groep-${anchorOf(g)}">${g}</h2>${list.map((o) => renderOperation(o))}</section>`)}
<section class="group"><h2 id="schemas">Schema's</h2>
${schemas.map(([name, s]) => html`<article class="schema" id="schema-${anchorOf(name)}"><h3>${name}</h3>${s.description ? html`<p>${markdownLite(s.description)}</p>` : ''}${schemaBody(s, 0)}</article>`)}
</section>`;
  return html`<!doctype html>
<html lang="nl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} ${version} · API-referentie</title>
<link rel="stylesheet" href="${links.index}/static/reference.css">
</head>
<body>
<header><a href="${links.index}">API-referentie</a> <span class="title">${title} <span class="version">${version}</span></span></header>
<div class="layout">${toc}<main><h1>${title} <span class="version">${version}</span></h1>${body}</main></div>
</body>
</html>
`;
}

interface Op extends Operation {
  path: string;
  method: string;
  anchor: string;
  pathParameters: Parameter[];
}

function operations(doc: OpenApiDocument): Op[] {
  const out: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const shared = (Array.isArray(item.parameters) ? item.parameters : []) as Parameter[];
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op || Array.isArray(op)) continue;
      out.push({
        ...op,
        path,
        method,
        anchor: `op-${anchorOf(op.operationId ?? `${method}-${path}`)}`,
        pathParameters: shared.map((p) => resolveParam(doc, p)),
      });
    }
  }
  return out.map((o) => ({ ...o, parameters: [...o.pathParameters, ...(o.parameters ?? []).map((p) => resolveParam(doc, p))] }));
}

function resolveParam(doc: OpenApiDocument, p: Parameter): Parameter {
  if (!p.$ref) return p;
  const name = p.$ref.split('/').pop() ?? '';
  return doc.components?.parameters?.[name] ?? p;
}

function renderOperation(op: Op): Html {
  const scopes = (op.security ?? []).flatMap((s) => Object.values(s).flat());
  const params = op.parameters ?? [];
  const body = op.requestBody;
  return html`<article class="op" id="${op.anchor}">
<h3><span class="m m-${op.method}">${op.method.toUpperCase()}</span> <code>${op.path}</code>${op.deprecated ? html` <span class="tag">verouderd</span>` : ''}</h3>
${op.summary ? html`<p class="summary">${op.summary}</p>` : ''}
${op.description ? html`<p>${markdownLite(op.description)}</p>` : ''}
<p class="meta">${op.operationId ? html`<code>${op.operationId}</code> · ` : ''}${scopes.length ? html`scopes: ${scopes.map((s, i) => html`${i ? ', ' : ''}<code>${s}</code>`)}` : 'geen scope vereist'}</p>
${
  params.length
    ? html`<h4>Parameters</h4><table><thead><tr><th>Naam</th><th>In</th><th>Type</th><th>Omschrijving</th></tr></thead><tbody>${params.map(
        (p) =>
          html`<tr><td><code>${p.name}</code>${p.required ? html` <span class="req" title="verplicht">*</span>` : ''}</td><td>${p.in}</td><td>${p.schema ? typeOf(p.schema) : ''}${p.schema ? constraints(p.schema) : ''}</td><td>${p.description ? markdownLite(p.description) : ''}</td></tr>`,
      )}</tbody></table>`
    : ''
}
${
  body?.content
    ? html`<h4>Request body${body.required ? '' : ' (optioneel)'}</h4>${Object.entries(body.content).map(([type, m]) => html`<p class="meta"><code>${type}</code></p>${m.schema ? schemaBody(m.schema, 0) : ''}`)}`
    : ''
}
<h4>Antwoorden</h4>
<table class="responses"><thead><tr><th>Status</th><th>Omschrijving</th><th>Inhoud</th></tr></thead><tbody>
${Object.entries(op.responses ?? {}).map(
  ([status, r]) =>
    html`<tr><td><span class="status s${status[0]}">${status}</span></td><td>${r.description ?? ''}</td><td>${Object.entries(r.content ?? {}).map(
      ([type, m]) =>
        html`<div><code>${type}</code>${m.schema ? html`: ${typeOf(m.schema)}${inlineObject(m.schema) ? schemaBody(m.schema, 1) : ''}` : ''}</div>`,
    )}</td></tr>`,
)}
</tbody></table>
</article>`;
}

const MAX_DEPTH = 3;

/** An inline object (not a reference) whose fields are worth a table of their own. */
function inlineObject(s: Schema): boolean {
  return !s.$ref && (!!s.properties || !!s.allOf?.some((x) => x.properties) || (s.type === 'array' && !!s.items && inlineObject(s.items)));
}

/** A schema's fields (object), items (array), or its type and constraints. */
export function schemaBody(s: Schema, depth: number): Html {
  if (s.$ref) return html`<p>${typeOf(s)}</p>`;
  if (s.type === 'array' && s.items)
    return html`<p>Lijst van ${typeOf(s.items)}${constraints(s)}</p>${inlineObject(s.items) && depth < MAX_DEPTH ? schemaBody(s.items, depth + 1) : ''}`;
  const merged = mergeAllOf(s);
  if (merged.properties) {
    const required = new Set(merged.required ?? []);
    return html`${merged.refs.length ? html`<p class="meta">Bevat ook: ${merged.refs.map((r, i) => html`${i ? ', ' : ''}${typeOf(r)}`)}</p>` : ''}<table class="fields"><thead><tr><th>Veld</th><th>Type</th><th>Omschrijving</th></tr></thead><tbody>${Object.entries(
      merged.properties,
    ).map(
      ([name, p]) =>
        html`<tr><td><code>${name}</code>${required.has(name) ? html` <span class="req" title="verplicht">*</span>` : ''}</td><td>${typeOf(p)}${constraints(p)}</td><td>${p.description ? markdownLite(p.description) : ''}${
          inlineObject(p) && depth < MAX_DEPTH
            ? html`<details><summary>velden</summary>${schemaBody(p.type === 'array' && p.items ? p.items : p, depth + 1)}</details>`
            : ''
        }</td></tr>`,
    )}</tbody></table>`;
  }
  return html`<p>${typeOf(s)}${constraints(s)}</p>`;
}

function mergeAllOf(s: Schema): { properties?: Record<string, Schema>; required?: string[]; refs: Schema[] } {
  if (!s.allOf) return { properties: s.properties, required: s.required, refs: [] };
  const props: Record<string, Schema> = { ...(s.properties ?? {}) };
  const required = [...(s.required ?? [])];
  const refs: Schema[] = [];
  for (const part of s.allOf) {
    if (part.$ref) refs.push(part);
    Object.assign(props, part.properties ?? {});
    required.push(...(part.required ?? []));
  }
  return { properties: Object.keys(props).length ? props : undefined, required, refs };
}

/** A short type: a link to a named schema, `lijst van …`, alternatives, with format and nullability. */
export function typeOf(s: Schema): Html {
  if (s.$ref) {
    const name = s.$ref.split('/').pop() ?? s.$ref;
    return html`<a class="ref" href="#schema-${anchorOf(name)}">${name}</a>`;
  }
  let t: Html;
  if (s.type === 'array') t = html`lijst van ${s.items ? typeOf(s.items) : 'waarden'}`;
  else if (s.allOf?.length === 1) t = typeOf(s.allOf[0]!);
  else if (s.oneOf || s.anyOf) {
    const alts = (s.oneOf ?? s.anyOf)!;
    t = html`${alts.map((a, i) => html`${i ? ' | ' : ''}${typeOf(a)}`)}`;
  } else if (s.allOf) t = html`${s.allOf.map((a, i) => html`${i ? ' & ' : ''}${typeOf(a)}`)}`;
  else
    t = html`<span class="type">${s.type ?? (s.properties ? 'object' : 'waarde')}</span>${s.format ? html` <span class="format">(${s.format})</span>` : ''}`;
  return html`${t}${s.nullable ? html` <span class="muted">| null</span>` : ''}`;
}

/** The rules on a value: enum, bounds, pattern, default, read-only. */
function constraints(s: Schema): Html {
  const items: Html[] = [];
  if (s.enum?.length) items.push(html`een van ${s.enum.map((v, i) => html`${i ? ', ' : ''}<code>${JSON.stringify(v)}</code>`)}`);
  if (s.minLength !== undefined) items.push(html`min. lengte ${s.minLength}`);
  if (s.maxLength !== undefined) items.push(html`max. lengte ${s.maxLength}`);
  if (s.minimum !== undefined) items.push(html`≥ ${s.minimum}`);
  if (s.maximum !== undefined) items.push(html`≤ ${s.maximum}`);
  if (s.minItems !== undefined) items.push(html`min. ${s.minItems} items`);
  if (s.maxItems !== undefined) items.push(html`max. ${s.maxItems} items`);
  if (s.pattern) items.push(html`patroon <code>${s.pattern}</code>`);
  if (s.default !== undefined) items.push(html`standaard <code>${JSON.stringify(s.default)}</code>`);
  if (s.readOnly) items.push(html`alleen lezen`);
  if (s.writeOnly) items.push(html`alleen schrijven`);
  if (s.deprecated) items.push(html`verouderd`);
  return items.length ? html`<div class="rules">${items.map((x, i) => html`${i ? '; ' : ''}${x}`)}</div>` : html``;
}

/** Anchor ids from names: letters, digits, `-`, `_` and `.` only. */
export function anchorOf(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '-');
}

/**
 * The little Markdown the documents use: `code` and [text](url) links (only http(s) and this host's paths);
 * everything else is text.
 */
export function markdownLite(text: string): Html {
  const parts: Html[] = [];
  const re = /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    parts.push(html`${text.slice(last, m.index)}`);
    if (m[1] !== undefined) parts.push(html`<code>${m[1]}</code>`);
    else {
      const href = safeHref(m[3]!);
      parts.push(href ? html`<a href="${href}">${m[2]}</a>` : html`${m[0]}`);
    }
    last = m.index + m[0].length;
  }
  parts.push(html`${text.slice(last)}`);
  return html`${parts}`;
}
