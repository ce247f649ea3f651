import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from 'mongodb';
import { z } from 'zod';
import type { AuditEntry, Config, Logger } from '@zgw/shared';
import { readActie, type ReadAudit } from './audit-reads';
import type { Authenticator, Caller } from './auth';
import type { CacheRegion, Caches } from './cache';
import { ZgwError, sendProblem } from './errors';
import { ComponentDocument } from './openapi';
import type { OutboxRelay } from './relay';
import type { Resource } from './resource';
import { Store } from './store';
import { UUID, type Urls } from './urls';
import { parseOrThrow } from './validation';

/** What every component gets from the platform. */
export interface Deps {
  config: Config;
  db: Db;
  urls: Urls;
  log: Logger;
  auth: Authenticator;
  caches: Caches;
  relay?: OutboxRelay;
  /** The audit trail of reads (audited components record every successful read here). */
  reads?: ReadAudit;
  /** Fetches a JSON document from another service (selectielijst, external references). */
  fetchJson: (url: string) => Promise<{ status: number; body: unknown }>;
  /** What a component offers the components mounted after it (Catalogi for Zaken, ...), by component name. */
  components: Map<string, unknown>;
}

export interface ComponentDef {
  /** Path segment: `/<name>/api/v1`. */
  name: string;
  /** Autorisaties component code: ac, nrc, zrc, ztc, drc, brc. */
  code: string;
  title: string;
  version: string;
  /**
   * Serve detail and list GETs from the component's read cache (cleared by every write to the component). Only for
   * reference data whose responses do not depend on who asks beyond the scopes (Catalogi).
   */
  cacheReads?: boolean;
  /** Audited components (Zaken, Documenten, Besluiten): every write and every read produces an audit entry. */
  audit?: { bron: AuditEntry['bron'] };
  register(api: ComponentApi): Promise<void> | void;
}

export interface HandlerContext<P, Q, B> {
  req: FastifyRequest;
  reply: FastifyReply;
  caller: Caller;
  params: P;
  query: Q;
  body: B;
}

export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string; // fastify style: /applicaties/:uuid
  operationId: string;
  summary?: string;
  /** Any one of these scopes grants access; empty = any authenticated client. */
  scopes: readonly string[];
  params?: P;
  query?: Q;
  body?: B;
  response?: z.ZodType;
  status?: number;
  /** Detail GETs answer with an ETag and honour If-None-Match. */
  etag?: boolean;
  /** The media type of the request body in the OpenAPI document (default application/json). */
  bodyType?: string;
  /** The body may be left out (then it is validated as `{}`). */
  optionalBody?: boolean;
  /** The handler sends the response itself (a file, streamed) with this media type; the wrapper only returns the reply. */
  sends?: string;
  handler(ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>>): Promise<unknown>;
}

export const UuidParams = z.object({ uuid: z.string() });

/** One ZGW component mounted under `/<name>/api/v1`: routes, stores and its OpenAPI document. */
export class ComponentApi {
  readonly doc: ComponentDocument;
  readonly base: string;
  /** The component's resources (each registers itself), for the follow-up sweep. */
  readonly resources: Resource<import('mongodb').Document>[] = [];
  private readonly cache: CacheRegion;

  constructor(
    readonly app: FastifyInstance,
    readonly def: ComponentDef,
    readonly deps: Deps,
  ) {
    this.base = deps.urls.api(def.name);
    this.doc = new ComponentDocument(def.title, def.version, this.base);
    this.cache = deps.caches.region(def.name);
  }

  /** A read through the component's cache when it caches reads (see ComponentDef.cacheReads). */
  cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    return this.def.cacheReads ? this.cache.getOrLoad(key, load) : load();
  }

  store<T extends object>(collection: string): Store<T & import('mongodb').Document> {
    const store = new Store<T & import('mongodb').Document>(this.deps.db, collection, () => this.deps.relay?.kick());
    store.maxSkip = this.deps.config.PAGE_SKIP_LIMIT;
    this.deps.relay?.register(store as never as Store<import('mongodb').Document>);
    return store;
  }

  url(collection: string, uuid: string): string {
    return this.deps.urls.resource(this.def.name, collection, uuid);
  }

  route<P extends z.ZodType = z.ZodObject, Q extends z.ZodType = z.ZodObject, B extends z.ZodType = z.ZodUnknown>(spec: RouteSpec<P, Q, B>): void {
    const status = spec.status ?? (spec.method === 'POST' ? 201 : spec.method === 'DELETE' ? 204 : 200);
    const audit = this.def.audit;
    // Reads of an audited component (detail, list, `_zoek`, download) leave a read entry; HEAD requests do not.
    const reading = audit && (spec.method === 'GET' || spec.method === 'POST') ? readActie(spec.operationId) : undefined;
    this.doc.add({
      method: spec.method.toLowerCase() as 'get',
      path: spec.path.replace(/:(\w+)/g, '{$1}'),
      operationId: spec.operationId,
      summary: spec.summary,
      scopes: spec.scopes,
      request: {
        params: spec.params as z.ZodObject | undefined,
        query: spec.query as z.ZodObject | undefined,
        body: spec.body ? { content: { [spec.bodyType ?? 'application/json']: { schema: spec.body } }, required: !spec.optionalBody } : undefined,
      },
      responses: {
        [status]: spec.sends
          ? { description: 'OK', content: { [spec.sends]: { schema: { type: 'string', format: 'binary' } } } }
          : spec.response
            ? { description: 'OK', content: { 'application/json': { schema: spec.response } } }
            : { description: status === 204 ? 'No content' : 'OK' },
      },
    });
    this.app.route({
      method: spec.method,
      url: spec.path,
      handler: async (req, reply) => {
        const rawParams = req.params as Record<string, string>;
        for (const [k, v] of Object.entries(rawParams)) {
          if (k.endsWith('uuid') && !UUID.test(v)) throw ZgwError.notFound(`Ongeldige uuid "${v}" in het pad.`);
        }
        const caller = await this.deps.auth.authenticate(req);
        req.caller = caller;
        if (spec.scopes.length && !caller.hasAnyScope(spec.scopes)) {
          throw ZgwError.forbidden(`Deze actie vereist een van de scopes: ${spec.scopes.join(', ')}.`);
        }
        const params = spec.params ? parseOrThrow(spec.params, rawParams) : rawParams;
        const query = spec.query ? parseOrThrow(spec.query, req.query ?? {}) : req.query;
        let body: unknown = req.body ?? (spec.optionalBody ? {} : undefined);
        if (spec.body) {
          if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
            throw ZgwError.field('nonFieldErrors', 'invalid', 'De request body moet een JSON object zijn.');
          }
          body = parseOrThrow(spec.body, body);
        }
        let result: unknown;
        try {
          result = await spec.handler({ req, reply, caller, params, query, body } as never);
        } finally {
          // Every write, even a failed one, clears the component's cache region (for Autorisaties: the applicaties
          // the authenticator keeps).
          if (spec.method !== 'GET') this.deps.caches.clear(this.def.name);
        }
        // The read entry is in the spool before the response leaves (a download's stream has started by then).
        const recordRead = (code: number) => {
          if (reading && req.method !== 'HEAD') this.deps.reads?.record({ bron: audit!.bron, actie: reading, operationId: spec.operationId, req, caller, result, body, status: code, base: this.deps.urls.base });
        };
        if (reply.sent || spec.sends) {
          recordRead(reply.statusCode);
          return reply;
        }
        if (status === 204) return reply.code(204).send();
        const payload = JSON.stringify(result);
        if (spec.etag) {
          const etag = `"${createHash('sha1').update(payload).digest('hex')}"`;
          reply.header('ETag', etag);
          if (req.headers['if-none-match'] === etag) {
            recordRead(304);
            return reply.code(304).send();
          }
        }
        recordRead(status);
        if (status === 201 && result && typeof result === 'object' && 'url' in result) reply.header('Location', String(result.url));
        return reply.code(status).type('application/json').send(payload);
      },
    });
  }
}

/** Mounts a component: its prefix, API-version header, 404s in the ZGW format and the schema endpoints. */
export async function mountComponent(app: FastifyInstance, def: ComponentDef, deps: Deps): Promise<ComponentApi> {
  let api!: ComponentApi;
  await app.register(
    async (scope) => {
      scope.addHook('onSend', async (_req, reply, payload) => {
        reply.header('API-version', def.version);
        return payload;
      });
      scope.setNotFoundHandler((req, reply) => sendProblem(req, reply, ZgwError.notFound('Deze URL bestaat niet.')));
      api = new ComponentApi(scope, def, deps);
      scope.get('/schema/openapi.json', async (_req, reply) => reply.type('application/json').send(api.doc.json()));
      scope.get('/schema/openapi.yaml', async (_req, reply) => reply.type('application/yaml').send(api.doc.yaml()));
      await def.register(api);
      settleFollowUps(scope, api);
    },
    { prefix: `/${def.name}/api/v1` },
  );
  return api;
}

/** How long a create may take before its follow-up writes are redone by another process (see Resource.settle). */
const SETTLE_GRACE_MS = 60_000;

/**
 * Every half minute, finishes the creates that a stopped process left half done (a part stored but not yet linked
 * on its zaak, a status stored without the zaak's status and einddatum, ...): see Resource.settle.
 */
function settleFollowUps(scope: FastifyInstance, api: ComponentApi): void {
  const resources = api.resources.filter((r) => r.def.afterWrite);
  if (!resources.length) return;
  const run = async () => {
    for (const r of resources) {
      const n = await r.settle(SETTLE_GRACE_MS);
      if (n) api.deps.log.warn({ collection: r.store.name, documents: n }, 'finished the follow-up writes of interrupted creates');
    }
  };
  const timer = setInterval(() => void run().catch((err: Error) => api.deps.log.error({ err: err.message }, 'follow-up sweep failed')), SETTLE_GRACE_MS / 2);
  timer.unref();
  scope.addHook('onClose', async () => clearInterval(timer));
}
