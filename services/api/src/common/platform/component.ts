import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { currentTenant, inTenant, type AuditEntry, type Config } from '@zgw/shared';
import { readActie } from '../audit/audit-reads';
import { Caller } from '../auth/auth';
import type { CacheRegion } from '../storage/cache';
import type { Deps } from './deps';
import { sendProblem, ZgwError, allowedMethods, notFound } from '../http/errors';
import { ComponentDocument } from '../http/openapi';
import { inProef, Store } from '../storage/store';
import { WrittenAnswer } from '../resources/render-cache';
import { UUID } from '../http/urls';
import { jsonObject, knownParams, parseOrThrow } from '../http/validation';

export type { Deps };

export interface ComponentDef {
  /** Path segment: `/<name>/api/v1`. */
  name: string;
  /** Autorisaties component code: ac, nrc, zrc, ztc, drc, brc. */
  code: string;
  title: string;
  /** The version served when a request names none (and the only one, unless `versions` lists more). */
  version: string;
  /**
   * Versions served on request (`Api-Version` header), newest last; `version` is among them. Only components that
   * list versions read the header (see `resolveVersion`).
   */
  versions?: readonly string[];
  /** The version served without a header, when it is configurable (default `version`). */
  defaultVersion?: (config: Config) => string;
  /**
   * Serve detail and list GETs from the component's read cache (cleared by every write to the component). Only for
   * reference data whose responses do not depend on who asks beyond the scopes (Catalogi).
   */
  cacheReads?: boolean;
  /**
   * Read without authorisation (the Referentielijsten API: public reference data, no tenant's): no token is asked or
   * checked, its document declares no security, and its routes act as an anonymous caller without rights.
   */
  open?: boolean;
  /** Audited components (Zaken, Documenten, Besluiten): every write and every read produces an audit entry. */
  audit?: { bron: AuditEntry['bron'] };
  /**
   * The field of a written body that names the type the component's autorisaties are per (zaaktype,
   * informatieobjecttype, besluittype). A create or update naming a type the client holds none of the route's scopes
   * for is refused (403) before the body is validated or the type resolved: whether a client may write this at all
   * never depends on how the platform validates.
   */
  typeField?: 'zaaktype' | 'informatieobjecttype' | 'besluittype';
  /**
   * How the standard's file names detail reads and deletes: `retrieve` (`zaak_retrieve`, `zaak_destroy`: Zaken,
   * Catalogi, Documenten) or `read` (`besluit_read`, `besluit_delete`: Besluiten, Notificaties, Autorisaties). Routes
   * are named the first way inside the platform; the document names them as the file does.
   */
  operationIds: 'retrieve' | 'read';
  /**
   * The standard's file declares each PATCH with the resource's whole body and its required list (Besluiten,
   * Notificaties, Autorisaties); the server takes any part of it, as a PATCH does.
   */
  wholePatchBodies?: boolean;
  /** The standard's file declares the `Content-Type` request header on every write (all but Notificaties and Autorisaties). */
  declaresContentType?: boolean;
  /**
   * The standard's file declares a `HEAD` beside each detail GET, and `If-None-Match` on both (Zaken, Catalogi,
   * Documenten), unless a resource says otherwise (ResourceDef.head).
   */
  heads?: boolean;
  register(api: ComponentApi): Promise<void> | void;
}

/** What a component keeps of each of its resources (common/platform/resource.ts): enough to sweep and to recognise their URLs. */
export interface MountedResource {
  readonly def: { readonly resource: string; readonly afterWrite?: unknown };
  readonly store: { readonly name: string; get(uuid: string): Promise<unknown> };
  uuidOf(url: string): string | undefined;
  /** Finishes the follow-up writes of creates older than `graceMs` that a stopped process left undone; how many. */
  settle(graceMs: number): Promise<number>;
}

export interface HandlerContext<P, Q, B> {
  req: FastifyRequest;
  reply: FastifyReply;
  caller: Caller;
  params: P;
  query: Q;
  body: B;
}

/**
 * What a route validates and answers in one API version, where that differs from its default schemas. A version's
 * query and body give what the handler reads: each a type the default's output takes (its fields or fewer, optional).
 */
export interface RouteVariant<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  query?: z.ZodType<z.output<Q>>;
  body?: z.ZodType<z.output<B>>;
  response?: z.ZodType;
  summary?: string;
  declared?: Declared;
}

/**
 * What a route's document declares where the standard's file says more than the server asks (a field required that
 * the server fills in itself, a PATCH body with the required list of the whole resource) or less than it takes (a
 * parameter of a later version): the document says what the file says, the server stays as lenient as it is.
 */
export interface Declared {
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
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
  /** The media types of the request body in the OpenAPI document (default application/json). */
  bodyType?: string | readonly [string, ...string[]];
  /** The body may be left out (then it is validated as `{}`). */
  optionalBody?: boolean;
  /** The handler sends the response itself (a file, streamed) with this media type; the wrapper only returns the reply. */
  sends?: string;
  /** Schemas of other API versions of the component, by version (see ComponentDef.versions). */
  variants?: Readonly<Record<string, RouteVariant<Q, B>>>;
  declared?: Declared;
  /**
   * The standard declares a `HEAD` operation beside this detail GET (`<resource>_headers`: the ETag, no body), and
   * `If-None-Match` on both.
   */
  head?: boolean;
  /** The standard declares the geometry headers `Accept-Crs` and `Content-Crs` (required, EPSG:4326) here. */
  crs?: boolean;
  /**
   * The standard declares `X-NLX-Logrecord-ID` and `X-Audit-Toelichting` here (default: the creates, updates and
   * deletes of an audited component).
   */
  auditHeaders?: boolean;
  /**
   * The operationId of a version whose file names it otherwise than the component's rule (Zaken 1.7's notities).
   */
  operationIds?: Readonly<Record<string, string>>;
  /**
   * The version that brought the route (Catalogi 1.3.3's catalogus updates): in the documents of that version and
   * later, answered 405 in the earlier ones.
   */
  since?: string;
  /**
   * False for a route the server answers but the standard's file does not declare (a rule of the standard's
   * compliance tests answers there): it stays out of the document, which says what the standard says.
   */
  documented?: boolean;
  handler(ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>>): Promise<unknown>;
}

export const UuidParams = z.object({ uuid: z.string() });

declare module 'fastify' {
  interface FastifyRequest {
    /** The API version this request is served in (components with several versions; see resolveVersion). */
    apiVersion?: string;
  }
}

/**
 * The version a request asks for in its `Api-Version` header: none or the major version alone (`1`, already in the
 * path) is the default; `major.minor` is the served version of that minor (`1.7` is 1.7.0); a full version must be
 * served as it is. Anything else is a 406 that lists the versions served.
 */
export function resolveVersion(header: string | string[] | undefined, served: readonly string[], fallback: string): string {
  const asked = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!asked) return fallback;
  if (/^\d+$/.test(asked) && fallback.split('.')[0] === asked) return fallback;
  if (/^\d+\.\d+$/.test(asked)) {
    const match = served.filter((v) => v.startsWith(`${asked}.`));
    if (match.length) return match[match.length - 1]!;
  }
  if (/^\d+\.\d+\.\d+$/.test(asked) && served.includes(asked)) return asked;
  throw new ZgwError(
    406,
    'unsupported-api-version',
    `API-versie "${asked.slice(0, 40)}" wordt niet ondersteund. Ondersteund: ${served.join(', ')} (ook als ${served.map((v) => v.split('.').slice(0, 2).join('.')).join(', ')}); zonder Api-Version header: ${fallback}.`,
  );
}

/** One ZGW component mounted under `/<name>/api/v1`: routes, stores and its OpenAPI document. */
export class ComponentApi {
  /** The OpenAPI document of the default version. */
  readonly doc: ComponentDocument;
  /** The OpenAPI document of every version served. */
  readonly docs = new Map<string, ComponentDocument>();
  /** The version served without an `Api-Version` header. */
  readonly defaultVersion: string;
  readonly base: string;
  /** The component's resources (each registers itself), for the follow-up sweep. */
  readonly resources: MountedResource[] = [];
  /** The component's read cache, when it caches reads (see ComponentDef.cacheReads). */
  private readonly cache?: CacheRegion;
  /** The version from which each method of a path is served (`METHOD path` to version), for the `Allow` of a 405. */
  private readonly since = new Map<string, string>();

  constructor(
    readonly app: FastifyInstance,
    readonly def: ComponentDef,
    readonly deps: Deps,
  ) {
    this.base = deps.urls.api(def.name);
    this.defaultVersion = def.defaultVersion?.(deps.config) ?? def.version;
    for (const v of def.versions ?? [def.version])
      this.docs.set(v, new ComponentDocument(def.title, v, this.base, this.schemaLinks(v), def.open === true));
    this.doc = this.docs.get(this.defaultVersion)!;
    if (def.cacheReads) this.cache = deps.caches.region(def.name);
  }

  /** The version a request is served in (the default when the component has one version). */
  version(req: FastifyRequest): string {
    return req.apiVersion ?? this.defaultVersion;
  }

  /**
   * The version of this component an object shows in: the one asked for when the request is this component's; the
   * newest when another component embeds it (the newer files of the others embed this component's newest schemas).
   */
  versionFor(req: FastifyRequest | undefined): string {
    if (req?.routeOptions.url?.startsWith(`/${this.def.name}/`)) return this.version(req);
    const all = this.def.versions ?? [this.def.version];
    return all[all.length - 1]!;
  }

  /** Whether `version` is `since` or later (versions in the order of ComponentDef.versions). */
  atLeast(version: string, since: string): boolean {
    return this.versionIndex(version) >= this.versionIndex(since);
  }

  private versionIndex(version: string): number {
    return (this.def.versions ?? [this.def.version]).indexOf(version);
  }

  /** The read cache's key of a request: its version and URL. */
  requestKey(req: FastifyRequest): string {
    return `${this.version(req)} ${req.url}`;
  }

  /** Where the OpenAPI documents of the other versions are, for the description of version `v`'s document. */
  private schemaLinks(v: string): string | undefined {
    const others = (this.def.versions ?? []).filter((o) => o !== v);
    if (!others.length) return undefined;
    const link = (o: string) => `[${o}](${this.base}/schema/${o}/openapi.yaml)`;
    return `Deze API dient de versies ${(this.def.versions ?? []).join(', ')}: kies met request header \`Api-Version\` (zonder header: ${this.defaultVersion}). Dit document beschrijft ${v}; zie ook ${others.map(link).join(', ')}.`;
  }

  /** A read through the component's cache when it caches reads (see ComponentDef.cacheReads). */
  cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    // (each tenant's objects are its own: so are their cache entries; what a dry run would store is no one's)
    return this.cache && !inProef() ? this.cache.getOrLoad(`${currentTenant() ?? ''} ${key}`, load) : load();
  }

  store<T extends object>(collection: string): Store<T & import('mongodb').Document> {
    const store = new Store<T & import('mongodb').Document>(this.deps.db, collection, () => this.deps.relay?.kick());
    store.maxSkip = this.deps.config.PAGE_SKIP_LIMIT;
    this.deps.relay?.register(store);
    return store;
  }

  url(collection: string, uuid: string): string {
    return this.deps.urls.resource(this.def.name, collection, uuid);
  }

  /** The operationId a version's document gives a route (see ComponentDef.operationIds). */
  private operationId(spec: Pick<RouteSpec<z.ZodType, z.ZodType, z.ZodType>, 'operationId' | 'operationIds'>, version: string): string {
    const own = spec.operationIds?.[version];
    if (own) return own;
    return this.def.operationIds === 'read' ? spec.operationId.replace(/_retrieve$/, '_read').replace(/_destroy$/, '_delete') : spec.operationId;
  }

  /** Adds a route to one version's document, with the header parameters the standard declares for it. */
  private document(doc: ComponentDocument, version: string, spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>, status: number): void {
    const v = spec.variants?.[version] ?? {};
    // A version's own schema stands before what the default version's document declares.
    const body = v.declared?.body ?? v.body ?? spec.declared?.body ?? spec.body;
    const response = v.declared?.response ?? v.response ?? spec.declared?.response ?? spec.response;
    const write = spec.method !== 'GET';
    const audited = spec.auditHeaders ?? (Boolean(this.def.audit) && /_(create|update|partial_update|destroy)$/.test(spec.operationId));
    const headers: Record<string, z.ZodType> = {};
    const bodyTypes = typeof spec.bodyType === 'string' ? [spec.bodyType] : [...(spec.bodyType ?? ['application/json'])];
    if (write && spec.method !== 'DELETE' && this.def.declaresContentType)
      headers['Content-Type'] = z.enum(bodyTypes).describe('Content type van de verzoekinhoud.');
    if (audited) {
      headers['X-NLX-Logrecord-ID'] = z.string().optional().describe('Identifier of the request, traceable throughout the network');
      headers['X-Audit-Toelichting'] = z.string().optional().describe('Toelichting waarom een bepaald verzoek wordt gedaan');
    }
    if (spec.crs) {
      headers['Accept-Crs'] = z.enum(['EPSG:4326']).describe("Het gewenste 'Coordinate Reference System' (CRS) van de geometrie in het antwoord.");
      headers['Content-Crs'] = z.enum(['EPSG:4326']).describe("Het 'Coordinate Reference System' (CRS) van de geometrie in de vraag.");
    }
    if (spec.head)
      headers['If-None-Match'] = z.string().optional().describe('Voer een voorwaardelijk verzoek uit (de ETag van een eerder antwoord).');
    if (this.def.versions)
      headers['Api-Version'] = z.string().optional().describe(`De gevraagde API-versie (zonder header: ${this.defaultVersion}).`);
    const query = undocumentedOut(v.declared?.query ?? v.query ?? spec.declared?.query ?? spec.query);
    const path = spec.path.replace(/:(\w+)/g, '{$1}');
    const operationId = this.operationId(spec, version);
    doc.add({
      method: spec.method.toLowerCase() as 'get',
      path,
      operationId,
      summary: v.summary ?? spec.summary,
      scopes: spec.scopes,
      request: {
        params: spec.params as z.ZodObject | undefined,
        query,
        headers: z.object(headers),
        body: body ? { content: Object.fromEntries(bodyTypes.map((t) => [t, { schema: body }])), required: !spec.optionalBody } : undefined,
      },
      responses: {
        [status]: spec.sends
          ? { description: 'OK', content: { [spec.sends]: { schema: { type: 'string', format: 'binary' } } } }
          : response
            ? { description: 'OK', content: { 'application/json': { schema: response } } }
            : { description: status === 204 ? 'No content' : 'OK' },
      },
    });
    if (spec.head) {
      doc.add({
        method: 'head',
        path,
        operationId: operationId.replace(/_(retrieve|read)$/, '_headers'),
        summary: `De headers van ${path} (de ETag), zonder inhoud.`,
        scopes: null,
        request: { params: spec.params as z.ZodObject | undefined, headers: z.object(headers) },
        responses: { '200': { description: 'OK' }, '304': { description: 'Not modified' } },
      });
    }
  }

  /**
   * Adds a route: its handler gets the params, query and body parsed by the schemas it declares (the request's
   * version's own first; each gives what the default's gives: RouteVariant), or as the request has them.
   */
  route<P extends z.ZodType = z.ZodObject, Q extends z.ZodType = z.ZodObject, B extends z.ZodType = z.ZodUnknown>(spec: RouteSpec<P, Q, B>): void;
  // (the wrapper is the same code for every route: it passes on what the route's schemas give, whatever they are)
  route(spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>): void {
    const status = spec.status ?? (spec.method === 'POST' ? 201 : spec.method === 'DELETE' ? 204 : 200);
    const audit = this.def.audit;
    // Reads of an audited component (detail, list, `_zoek`, download) leave a read entry; HEAD requests do not.
    const reading = audit && (spec.method === 'GET' || spec.method === 'POST') ? readActie(spec.operationId) : undefined;
    const writesType = this.def.typeField && /_(create|update|partial_update)$/.test(spec.operationId) ? this.def.typeField : undefined;
    const served = (version: string) => !spec.since || this.atLeast(version, spec.since);
    if (spec.since) this.since.set(`${spec.method} ${spec.path}`, spec.since);
    if (spec.documented !== false) for (const [version, doc] of this.docs) if (served(version)) this.document(doc, version, spec, status);
    this.app.route({
      method: spec.method,
      url: spec.path,
      ...(spec.crs && spec.method !== 'DELETE' ? { preHandler: crsCheck(spec.method === 'GET' || spec.operationId.endsWith('_zoek')) } : {}),
      handler: async (req, reply) => {
        const rawParams = req.params as Record<string, string>;
        for (const [k, v] of Object.entries(rawParams)) {
          if (k.endsWith('uuid') && !UUID.test(v))
            throw ZgwError.notFound(`Ongeldige uuid "${v.length > 40 ? `${v.slice(0, 40)}…` : v}" in het pad.`);
        }
        const version = this.version(req);
        if (!served(version)) {
          // the methods this path answers in the request's version
          const allow = allowedMethods(req).filter((m) => {
            const since = this.since.get(`${m === 'HEAD' ? 'GET' : m} ${spec.path}`);
            return !since || this.atLeast(version, since);
          });
          throw new ZgwError(
            405,
            'method_not_allowed',
            `Methode ${spec.method} is hier toegestaan vanaf versie ${spec.since} (request header Api-Version: ${spec.since}).`,
            undefined,
            { Allow: allow.join(', ') },
          );
        }
        const caller = this.def.open ? anonymous(this.deps.config.ZGW_DEFAULT_TENANT) : await this.deps.auth.authenticate(req);
        req.caller = caller;
        // the request's log lines (its completion line too) name the tenant
        req.log = req.log.child({ tenant: caller.tenant });
        // Everything the request reads and writes is its caller's tenant's (shared/src/tenant.ts).
        return inTenant(caller.tenant, () => serve(req, reply, caller, rawParams));
      },
    });
    const serve = async (req: FastifyRequest, reply: FastifyReply, caller: Caller, rawParams: Record<string, string>) => {
      if (spec.scopes.length && !caller.hasAnyScope(spec.scopes)) {
        throw ZgwError.forbidden(`Deze actie vereist een van de scopes: ${spec.scopes.join(', ')}.`);
      }
      if (writesType) mustHoldType(caller, this.def.code, writesType, spec.scopes, req.body);
      const variant = req.apiVersion ? spec.variants?.[req.apiVersion] : undefined;
      const querySchema = variant?.query ?? spec.query;
      const bodySchema = variant?.body ?? spec.body;
      const params = spec.params ? parseOrThrow(spec.params, rawParams) : rawParams;
      const query = querySchema ? parseOrThrow(querySchema, knownParams(querySchema, req.query ?? {})) : req.query;
      let body: unknown = req.body ?? (spec.optionalBody ? {} : undefined);
      if (bodySchema) {
        const object = jsonObject(body);
        // A `_zoek` body is a set of filters: an unknown one is refused, never dropped.
        body = parseOrThrow(bodySchema, spec.operationId.endsWith('_zoek') ? knownParams(bodySchema, object) : object);
      }
      let result: unknown;
      try {
        result = await spec.handler({ req, reply, caller, params, query, body });
      } finally {
        // Every write, even a failed one, clears the component's cache region where this instance keeps one (its
        // read cache; for Autorisaties: the applicaties the authenticator keeps), here and in the other instances.
        // Components that keep none (Zaken, Documenten, ...) send nothing: a create costs no cache message.
        if (spec.method !== 'GET' && this.deps.caches.has(this.def.name)) this.deps.caches.clear(this.def.name);
      }
      // (an answer written from rendered texts: see RenderCache)
      const written = result instanceof WrittenAnswer ? result : undefined;
      // The read entry is in the spool before the response leaves (a download's stream has started by then).
      const recordRead = (code: number) => {
        if (reading && req.method !== 'HEAD')
          this.deps.reads?.record({
            bron: audit!.bron,
            actie: reading,
            operationId: spec.operationId,
            req,
            caller,
            result: written ? written.shown : result,
            body,
            status: code,
            base: this.deps.urls.base,
          });
      };
      if (reply.sent || spec.sends) {
        recordRead(reply.statusCode);
        return reply;
      }
      if (status === 204) return reply.code(204).send();
      const payload = written ? written.payload : JSON.stringify(result);
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
    };
  }
}

/** The caller of an open component's routes (ComponentDef.open): no client, no rights. */
function anonymous(tenant: string): Caller {
  return new Caller('', '', '', { autorisaties: [] }, tenant);
}

/**
 * The geometry headers of a route that declares them (`crs`): reads and writes need `Accept-Crs: EPSG:4326`, writes
 * (but `_zoek`, a read by POST) also `Content-Crs` (missing: 412, another CRS: 406); the answer says
 * `Content-Crs: EPSG:4326`. A route option (Fastify's `preHandler`), so it runs before authentication, as the
 * reference implementation checks it, and only on the routes whose spec asks for it.
 */
function crsCheck(read: boolean) {
  const check = (req: FastifyRequest, header: string) => {
    const value = req.headers[header];
    if (value === undefined) return new ZgwError(412, 'precondition_failed', `De header ${header} ontbreekt; gebruik EPSG:4326.`);
    if (String(value).trim() !== 'EPSG:4326')
      return new ZgwError(406, 'not_acceptable', `CRS ${String(value)} wordt niet ondersteund; gebruik EPSG:4326.`);
    return undefined;
  };
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method === 'HEAD') return;
    const error = check(req, 'accept-crs') ?? (read ? undefined : check(req, 'content-crs'));
    if (error) return sendProblem(req, reply, error);
    reply.header('Content-Crs', 'EPSG:4326');
  };
}

/**
 * Mounts a component: its prefix, the version of each request (`Api-Version`, for components with several) and the
 * `API-version` header of every response, 404s in the ZGW format and the schema endpoints: `/schema/openapi.yaml`
 * (and `.json`) in the version asked for, and `/schema/<version>/openapi.yaml` of each version.
 */
export async function mountComponent(app: FastifyInstance, def: ComponentDef, deps: Deps): Promise<ComponentApi> {
  let api!: ComponentApi;
  await app.register(
    async (scope) => {
      api = new ComponentApi(scope, def, deps);
      if (def.versions) {
        scope.addHook('onRequest', async (req) => {
          req.apiVersion = resolveVersion(req.headers['api-version'], def.versions!, api.defaultVersion);
        });
      }
      scope.addHook('onSend', async (req, reply, payload) => {
        reply.header('API-version', req.apiVersion ?? api.defaultVersion);
        return payload;
      });
      scope.setNotFoundHandler(notFound);
      const docOf = (req: FastifyRequest) => api.docs.get(api.version(req))!;
      scope.get('/schema/openapi.json', async (req, reply) => reply.type('application/json').send(docOf(req).json()));
      scope.get('/schema/openapi.yaml', async (req, reply) => reply.type('application/yaml').send(docOf(req).yaml()));
      if (def.versions) {
        const pick = (req: FastifyRequest) => {
          const doc = api.docs.get((req.params as { version: string }).version);
          if (!doc) throw ZgwError.notFound(`Geen OpenAPI-document voor deze versie; er zijn ${[...api.docs.keys()].join(', ')}.`);
          return doc;
        };
        scope.get('/schema/:version/openapi.json', async (req, reply) => reply.type('application/json').send(pick(req).json()));
        scope.get('/schema/:version/openapi.yaml', async (req, reply) => reply.type('application/yaml').send(pick(req).yaml()));
      }
      const started = Date.now();
      await def.register(api);
      deps.log.info({ component: def.name, ms: Date.now() - started }, 'component ready');
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
  const timer = setInterval(() => void run().catch((err: Error) => api.deps.log.error({ err }, 'follow-up sweep failed')), SETTLE_GRACE_MS / 2);
  timer.unref();
  scope.addHook('onClose', async () => clearInterval(timer));
}

/**
 * The query of a route as its document declares it: without the keyset `cursor` of the list pages, which the server
 * puts in the `next`/`previous` links it hands out but which the standard does not know.
 */
function undocumentedOut(query: z.ZodType | undefined): z.ZodObject | undefined {
  if (!(query instanceof z.ZodObject)) return query as z.ZodObject | undefined;
  return 'cursor' in query.shape ? query.omit({ cursor: true }) : query;
}

/**
 * The type a write names must be one the client holds one of the route's scopes for in this component, compared as
 * sent, before anything resolves or validates it (403 `permission_denied`). A body without the field, or with
 * something other than a string there, is left to validation.
 */
function mustHoldType(
  caller: Caller,
  component: string,
  field: NonNullable<ComponentDef['typeField']>,
  scopes: readonly string[],
  body: unknown,
): void {
  if (caller.all || !body || typeof body !== 'object' || Array.isArray(body)) return;
  const type = (body as Record<string, unknown>)[field];
  if (typeof type !== 'string' || !type) return;
  if (scopes.some((scope) => caller.allows(component, scope, field, type))) return;
  throw ZgwError.forbidden(`Deze client heeft geen autorisatie voor dit ${field}.`);
}
