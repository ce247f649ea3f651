import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { randomUUID } from 'node:crypto';

export interface InvalidParam {
  name: string;
  code: string;
  reason: string;
}

const TITLES: Record<number, string> = {
  400: 'Invalid input.',
  401: 'Authenticatiegegevens ontbreken of zijn ongeldig.',
  403: 'U heeft geen toestemming om deze actie uit te voeren.',
  404: 'Niet gevonden.',
  405: 'Methode niet toegestaan.',
  406: 'Kan niet voldoen aan de opgegeven Accept header.',
  409: 'Conflict.',
  410: 'Deze resource is verwijderd.',
  412: 'Precondition failed.',
  413: 'Request body te groot.',
  415: 'Niet ondersteund mediatype.',
  429: 'Te veel verzoeken.',
  500: 'Er is een serverfout opgetreden.',
  502: 'Externe dienst gaf een ongeldig antwoord.',
  503: 'Dienst tijdelijk niet beschikbaar.',
};

/** An error that renders as a ZGW problem body (`Fout`, or `ValidatieFout` when it has invalidParams). */
export class ZgwError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly invalidParams?: InvalidParam[],
    /** Response headers that go with the problem (Retry-After of a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }

  static validation(params: InvalidParam[], detail = 'Ongeldige invoer.'): ZgwError {
    return new ZgwError(400, 'invalid', detail, params);
  }

  static field(name: string, code: string, reason: string): ZgwError {
    return ZgwError.validation([{ name, code, reason }]);
  }

  static notFound(detail = 'Niet gevonden.'): ZgwError {
    return new ZgwError(404, 'not_found', detail);
  }

  static forbidden(detail = 'U heeft geen toestemming om deze actie uit te voeren.', code = 'permission_denied'): ZgwError {
    return new ZgwError(403, code, detail);
  }

  static unauthorized(detail: string, code = 'not_authenticated'): ZgwError {
    return new ZgwError(401, code, detail);
  }
}

export function problemBody(req: FastifyRequest, err: ZgwError): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: `https://zaakgerichtwerken.vng.cloud/ref/fouten/${err.code}/`,
    code: err.code,
    title: TITLES[err.status] ?? 'Fout.',
    status: err.status,
    detail: err.message,
    instance: `urn:uuid:${req.id ?? randomUUID()}`,
  };
  if (err.invalidParams) body.invalidParams = err.invalidParams;
  return body;
}

export function sendProblem(req: FastifyRequest, reply: FastifyReply, err: ZgwError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.status).type('application/problem+json').send(problemBody(req, err));
}

/** Maps Fastify's own errors (bad JSON, body too large, wrong media type) onto the ZGW error format. */
function fromFastify(err: FastifyError): ZgwError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ZgwError.field('nonFieldErrors', 'parse_error', `De JSON in de request body is ongeldig: ${err.message}`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ZgwError(413, 'request_too_large', 'De request body is groter dan toegestaan.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ZgwError(415, 'unsupported_media_type', 'Gebruik Content-Type application/json.');
    default:
      break;
  }
  if (err instanceof SyntaxError) return ZgwError.field('nonFieldErrors', 'parse_error', 'De JSON in de request body is ongeldig.');
  // A unique index refused the write (two concurrent creates of one key, or a value the rules do not check first):
  // the field that must be unique, never a 500. The value itself is not echoed.
  // (a MongoServerError: its code a number, its keyPattern the index's fields)
  const dup: { code?: unknown; keyPattern?: unknown } = err;
  if (dup.code === 11000) {
    const keys =
      dup.keyPattern && typeof dup.keyPattern === 'object'
        ? Object.keys(dup.keyPattern)
        : [...err.message.matchAll(/[{,] ([\w.]+): /g)].map((m) => m[1]!);
    const field = keys.find((k) => !k.startsWith('_')) ?? 'nonFieldErrors';
    return ZgwError.field(field, 'unique', `Er bestaat al een object met deze waarde van ${field}.`);
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ZgwError(err.statusCode, 'invalid', err.message);
  }
  return undefined;
}

/** The client went away while its request was read (its socket closed): nothing can be answered, and no fault here. */
function abandoned(error: FastifyError, req: FastifyRequest): boolean {
  return (error as NodeJS.ErrnoException).code === 'ECONNRESET' && req.raw.destroyed;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, req, reply) => {
    const zgw = error instanceof ZgwError ? error : fromFastify(error);
    if (zgw) {
      if (zgw.status >= 500) req.log.error({ err: error }, 'request failed');
      return sendProblem(req, reply, zgw);
    }
    if (abandoned(error, req)) {
      req.log.info({ reason: error.message }, 'the client closed the connection before its request was read whole');
      return sendProblem(req, reply, new ZgwError(400, 'aborted', 'De verbinding werd gesloten voordat het verzoek volledig was ontvangen.'));
    }
    req.log.error({ err: error }, 'unhandled error');
    return sendProblem(req, reply, new ZgwError(500, 'error', 'Er is een onverwachte fout opgetreden; zie de serverlog bij deze instance.'));
  });
  app.setNotFoundHandler(notFound);
}

/** The methods a path may answer to, for the `Allow` header of a 405. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const ROUTES = Symbol('zgw.routes');
const TABLE = Symbol('zgw.route-table');
export interface RouteEntry {
  method: string;
  url: string;
}
type WithRoutes = FastifyInstance & { [ROUTES]?: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>; [TABLE]?: RouteEntry[] };

/**
 * Keeps every route's method and path (from every scope), so a request to a path that exists with a method it does
 * not answer to is told which it does. Call on the root instance before any route is added.
 */
export function registerMethodRegistry(app: FastifyInstance): void {
  const routes = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 16 * 1024 });
  const table: RouteEntry[] = [];
  (app as WithRoutes)[ROUTES] = routes;
  (app as WithRoutes)[TABLE] = table;
  // Answered before any body is read (a body of a type no route parses would be a 415 first): a method no route has
  // (TRACE, QUERY, ...), 404 or 405; a path that exists with other methods, 405. Other unknown paths go on to the
  // not-found handler of their scope (an admin screen answers with a page).
  app.addHook('onRequest', async (req, reply) => {
    if (!(METHODS as readonly string[]).includes(req.method) || (req.is404 && allowedMethods(req).length)) return notFound(req, reply);
  });
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      // the same method and path may come twice (a second scope, the HEAD Fastify adds to a GET): keep it once
      if (!(METHODS as readonly string[]).includes(method) || routes.hasRoute(method as FindMyWay.HTTPMethod, route.url)) continue;
      routes.on(method as FindMyWay.HTTPMethod, route.url, () => undefined);
      table.push({ method, url: route.url });
    }
  });
}

/** Every route of the app as it was registered (method and path template), for tools that must cover every route. */
export function routeTable(app: FastifyInstance): RouteEntry[] {
  return [...((app as WithRoutes)[TABLE] ?? [])];
}

/** The methods the request's path answers to (none for an unknown path). */
export function allowedMethods(req: FastifyRequest): string[] {
  const routes = (req.server as WithRoutes)[ROUTES];
  const path = req.url.split('?')[0]!;
  return routes ? METHODS.filter((m) => routes.find(m, path)) : [];
}

/**
 * An unknown URL is a 404 in the ZGW problem format; a known path asked with a method it does not answer to is a 405
 * with an `Allow` header that names the methods it does.
 */
export function notFound(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const allowed = allowedMethods(req);
  if (allowed.length && !(allowed as string[]).includes(req.method)) {
    reply.header('Allow', allowed.join(', '));
    return sendProblem(
      req,
      reply,
      new ZgwError(405, 'method_not_allowed', `Methode ${req.method} is hier niet toegestaan; wel: ${allowed.join(', ')}.`),
    );
  }
  return sendProblem(req, reply, ZgwError.notFound('Deze URL bestaat niet.'));
}
