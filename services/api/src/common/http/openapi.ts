import { OpenAPIRegistry, OpenApiGeneratorV3, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { stringify } from 'yaml';

export const FieldValidationError = z.object({ name: z.string(), code: z.string(), reason: z.string() }).meta({ id: 'FieldValidationError' });
export const Fout = z
  .object({ type: z.string().optional(), code: z.string(), title: z.string(), status: z.number().int(), detail: z.string(), instance: z.string() })
  .meta({ id: 'Fout' });
export const ValidatieFout = Fout.extend({ invalidParams: z.array(FieldValidationError) }).meta({ id: 'ValidatieFout' });

const problem = (schema: z.ZodType, description: string) => ({ description, content: { 'application/problem+json': { schema } } });

const ERRORS: readonly (readonly [string, string])[] = [
  ['401', 'Unauthorized'],
  ['403', 'Forbidden'],
  ['404', 'Not found'],
  ['406', 'Not acceptable'],
  ['409', 'Conflict'],
  ['410', 'Gone'],
  ['412', 'Precondition failed'],
  ['415', 'Unsupported media type'],
  ['429', 'Too many requests'],
  ['500', 'Internal server error'],
];

/** What an open component never answers: it asks no token (so no rate limit per client either). */
const OPEN_NEVER = ['401', '403', '429'];

/** The OpenAPI document of one component, built from the same zod schemas that validate its requests. */
export class ComponentDocument {
  readonly registry = new OpenAPIRegistry();
  private cache?: { json: string; yaml: string };

  constructor(
    private readonly title: string,
    private readonly version: string,
    private readonly serverUrl: string,
    private readonly description?: string,
    /** Read without authorisation: no security scheme, and no 401, 403 or 429 (see ComponentDef.open). */
    private readonly open = false,
  ) {
    if (!open) this.registry.registerComponent('securitySchemes', 'JWT-Claims', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  }

  add(route: RouteConfig & { scopes?: readonly string[] | null }): void {
    const { scopes, ...config } = route;
    // Every error the platform may answer, in the problem format, as the standard's own documents declare them (and
    // 404 on lists too: a page beyond the last one), plus 413 where a body is sent.
    const responses = { ...config.responses };
    responses['400'] ??= problem(ValidatieFout, 'Bad request');
    for (const [status, description] of ERRORS) if (!this.open || !OPEN_NEVER.includes(status)) responses[status] ??= problem(Fout, description);
    if (config.request?.body) responses['413'] ??= problem(Fout, 'Request body too large');
    this.registry.registerPath({
      ...config,
      responses,
      security: scopes && scopes.length ? [{ 'JWT-Claims': [scopes.length > 1 ? `(${scopes.join(' | ')})` : scopes[0]!] }] : undefined,
    });
    this.cache = undefined;
  }

  private render(): { json: string; yaml: string } {
    if (!this.cache) {
      const doc = new OpenApiGeneratorV3(this.registry.definitions).generateDocument({
        openapi: '3.0.3',
        info: { title: this.title, version: this.version, ...(this.description ? { description: this.description } : {}) },
        servers: [{ url: this.serverUrl }],
        ...(this.open ? {} : { security: [{ 'JWT-Claims': [] }] }),
      });
      unversionNames(doc as unknown as Record<string, unknown>);
      this.cache = { json: JSON.stringify(doc), yaml: stringify(doc) };
    }
    return this.cache;
  }

  json(): string {
    return this.render().json;
  }

  yaml(): string {
    return this.render().yaml;
  }
}

/**
 * Schema ids are global, so a schema that differs between versions of a component carries its version in its id
 * (`EnkelvoudigInformatieObject@1.7.0`); each version's document names it as the standard does.
 */
function unversionNames(doc: Record<string, unknown>): void {
  const strip = (name: string) => name.replace(/@\d+\.\d+\.\d+$/, '');
  const schemas = (doc.components as { schemas?: Record<string, unknown> } | undefined)?.schemas;
  if (schemas) {
    for (const name of Object.keys(schemas)) {
      if (strip(name) === name) continue;
      schemas[strip(name)] = schemas[name];
      delete schemas[name];
    }
  }
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (typeof o.$ref === 'string') o.$ref = strip(o.$ref);
      Object.values(o).forEach(walk);
    }
  };
  walk(doc);
}
