import { createSigner } from 'fast-jwt';
import type { z } from 'zod';
import { scrub } from './logger';

/**
 * A JSON object as it is parsed or written: an API's answer (another registration's, or this platform's own read back),
 * a document as the store holds it at its boundary, a text about to be sent. Its fields are unknown until a schema or a
 * check says what they are; everywhere else objects have the types of their schemas.
 */
export type JsonObject = Record<string, unknown>;

/**
 * A client of a ZGW system (this platform or another) over its standard APIs, as one registered client id: every
 * request carries a ZGW JWT (HS256 with the client's secret) signed at most ten seconds before. Used by ZSDMS transfers on both sides.
 */
export interface ZgwCredentials {
  clientId: string;
  secret: string;
}

/** A failed ZGW call: its status (0: no answer) and the problem the server sent (never a request body). */
export class ZgwCallError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly problem: unknown,
  ) {
    // The message travels into logs, the overdracht's `fout` and Temporal's history: BSN-like values masked.
    super(scrub(`${method} ${url}: ${status ? `status ${status}` : 'geen antwoord'}${problemText(problem)}`));
  }

  /** Worth another attempt: no answer, a timeout, a 5xx, or 429. A 4xx is permanent. */
  get technisch(): boolean {
    return this.status === 0 || this.status >= 500 || this.status === 429 || this.status === 408;
  }
}

function problemText(problem: unknown): string {
  if (!problem || typeof problem !== 'object') return '';
  const p = problem as { detail?: string; title?: string; invalidParams?: { name: string; reason: string }[] };
  const params = (p.invalidParams ?? []).map((i) => `${i.name}: ${i.reason}`).join('; ');
  return ` (${p.detail ?? p.title ?? ''}${params ? `; ${params}` : ''})`.slice(0, 600);
}

export interface ZgwRequest {
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses that are an answer, not an error (e.g. 404 for a lookup). */
  accept?: number[];
}

/** How long a signed token is used again: its `iat` stays well within what any ZGW system accepts. */
const TOKEN_REUSE_MS = 10_000;

export class ZgwClient {
  private readonly sign: (payload: Record<string, unknown>) => string;
  private signed?: { token: string; at: number };

  constructor(
    readonly credentials: ZgwCredentials,
    private readonly timeoutMs = 30_000,
    private readonly userRepresentation = 'Overdracht',
    /** A signal that ends every call when it aborts (an activity attempt that is no longer the current one). */
    private readonly signal?: () => AbortSignal | undefined,
    /** Headers sent with every call (the transfer worker's TENANT_HEADER). */
    private readonly always: Record<string, string> = {},
  ) {
    this.sign = createSigner({ key: credentials.secret, algorithm: 'HS256' });
  }

  /** A ZGW JWT of this client: one signed at most TOKEN_REUSE_MS ago (signing each request costs more than it says). */
  token(): string {
    const now = Date.now();
    if (this.signed && now - this.signed.at < TOKEN_REUSE_MS) return this.signed.token;
    const token = this.sign({
      client_id: this.credentials.clientId,
      iss: this.credentials.clientId,
      user_id: this.credentials.clientId,
      user_representation: this.userRepresentation,
    });
    this.signed = { token, at: now };
    return token;
  }

  /** The raw response of an authenticated request (for streams); throws only when there is no answer. */
  async fetch(
    method: string,
    url: string,
    init: { body?: string | ReadableStream | Blob | FormData; headers?: Record<string, string>; duplex?: 'half' } = {},
  ): Promise<Response> {
    try {
      return await fetch(url, {
        method,
        body: init.body,
        headers: {
          authorization: `Bearer ${this.token()}`,
          'accept-crs': 'EPSG:4326',
          'content-crs': 'EPSG:4326',
          ...this.always,
          ...init.headers,
        },
        signal: this.abortSignal(),
        ...(init.duplex ? { duplex: init.duplex } : {}),
      } as RequestInit);
    } catch (err) {
      throw new ZgwCallError(method, url, 0, { detail: (err as Error).message });
    }
  }

  /** The content at `url` as a stream (never whole in memory); a status other than 2xx throws a ZgwCallError. */
  async download(url: string): Promise<ReadableStream<Uint8Array>> {
    const res = await this.fetch('GET', url);
    if (!res.ok || !res.body) throw new ZgwCallError('GET', url, res.status, { detail: await res.text().catch(() => '') });
    return res.body;
  }

  private abortSignal(): AbortSignal {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const outer = this.signal?.();
    if (outer?.aborted) throw new ZgwCallError('-', '-', 0, { detail: 'afgebroken: deze poging is niet meer de lopende' });
    return outer ? AbortSignal.any([timeout, outer]) : timeout;
  }

  /** A JSON call; a status other than 2xx (or one of `accept`) throws a ZgwCallError. */
  async call(method: string, url: string, req: ZgwRequest = {}): Promise<{ status: number; body: unknown }> {
    const res = await this.fetch(method, url, {
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      headers: { ...(req.body === undefined ? {} : { 'content-type': 'application/json' }), ...req.headers },
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = { detail: text.slice(0, 200) };
    }
    if (res.ok || req.accept?.includes(res.status)) return { status: res.status, body };
    throw new ZgwCallError(method, url, res.status, body);
  }

  /**
   * The object at `url`, parsed with `schema`: another system's answer is checked where it enters (an answer that
   * does not fit is a permanent ZgwCallError naming the fields, never a value of the wrong type further on).
   */
  async get<S extends z.ZodType>(url: string, schema: S): Promise<z.output<S>> {
    return parsed(schema, 'GET', url, (await this.call('GET', url)).body);
  }

  /** The object at `url` (parsed with `schema`), or null when it does not exist (404, 410). */
  async find<S extends z.ZodType>(url: string, schema: S): Promise<z.output<S> | null> {
    const r = await this.call('GET', url, { accept: [404, 410] });
    return r.status === 200 ? parsed(schema, 'GET', url, r.body) : null;
  }

  /** Creates; the answer parsed with `schema` when one is given (else it is not read). */
  async post<S extends z.ZodType>(url: string, body: unknown, schema?: S, headers?: Record<string, string>): Promise<z.output<S>> {
    const r = await this.call('POST', url, { body, headers });
    return schema ? parsed(schema, 'POST', url, r.body) : (undefined as z.output<S>);
  }

  async patch<S extends z.ZodType>(url: string, body: unknown, schema?: S): Promise<z.output<S>> {
    const r = await this.call('PATCH', url, { body });
    return schema ? parsed(schema, 'PATCH', url, r.body) : (undefined as z.output<S>);
  }

  /** Deletes; an object already gone is fine. */
  async delete(url: string): Promise<void> {
    await this.call('DELETE', url, { accept: [404, 410] });
  }

  /** Every result of a paginated list (or of a plain array), following `next`, each parsed with `item`. */
  async all<S extends z.ZodType>(url: string, item: S): Promise<z.output<S>[]> {
    const out: z.output<S>[] = [];
    for (let next: string | null = url; next;) {
      const page: { results: z.output<S>[]; next: string | null } = await this.page(next, item);
      out.push(...page.results);
      next = page.next;
    }
    return out;
  }

  /**
   * One page of the list at `url` (a page of a paginated list, or a list that has no pages): its objects, each parsed
   * with `item`, and the next page's URL. An answer that is no list is a ZgwCallError with status 200, as one that
   * does not fit.
   */
  async page<S extends z.ZodType>(url: string, item: S): Promise<{ results: z.output<S>[]; next: string | null }> {
    const body = (await this.call('GET', url)).body;
    const page = Array.isArray(body) ? { results: body, next: null } : (body as { results?: unknown; next?: unknown } | undefined);
    if (!page || !Array.isArray(page.results)) throw new ZgwCallError('GET', url, 200, { detail: 'het antwoord is geen ZGW-lijst' });
    const results = page.results.map((x, i) => parsed(item, 'GET', url, x, `results.${i}.`));
    return { results, next: typeof page.next === 'string' && page.next ? page.next : null };
  }
}

/** `value` parsed with `schema`; what does not fit is a permanent ZgwCallError (status 200: the call itself worked). */
function parsed<S extends z.ZodType>(schema: S, method: string, url: string, value: unknown, prefix = ''): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const invalidParams = r.error.issues.slice(0, 5).map((i) => ({ name: `${prefix}${i.path.join('.')}`, reason: i.message }));
  throw new ZgwCallError(method, url, 200, { detail: 'het antwoord voldoet niet aan de standaard', invalidParams });
}

/** `base` + path segments + query, for list URLs. */
export function zgwUrl(base: string, path: string, query: Record<string, string | undefined> = {}): string {
  const u = new URL(`${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}
