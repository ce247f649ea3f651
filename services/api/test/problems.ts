import type { LightMyRequestResponse } from 'fastify';

/**
 * What is wrong with the answers to bad input, collected over a sweep so that one run shows every case: a 5xx, a
 * 4xx that is not a ZGW problem body (`Fout`; `ValidatieFout` with invalidParams for a 400), or another status than
 * the one the case expects.
 */
export class Problems {
  readonly found: string[] = [];

  /** Records a 5xx, or a 4xx without the ZGW error shape; a 2xx or 3xx is not judged here. */
  check(label: string, res: LightMyRequestResponse): LightMyRequestResponse {
    if (res.statusCode >= 500) return this.add(label, res, 'server error');
    if (res.statusCode < 400) return res;
    // HEAD answers carry no body.
    if (res.raw.req.method === 'HEAD') return res;
    let body: Record<string, unknown>;
    try {
      body = res.json();
    } catch {
      return this.add(label, res, 'no JSON body');
    }
    const missing = ['type', 'code', 'title', 'status', 'detail', 'instance'].filter((key) => !(key in body));
    if (missing.length) this.add(label, res, `body misses ${missing.join(', ')}`);
    if (body.status !== res.statusCode) this.add(label, res, `body status ${String(body.status)}`);
    if (!String(res.headers['content-type']).startsWith('application/problem+json'))
      this.add(label, res, `content-type ${String(res.headers['content-type'])}`);
    if (res.statusCode === 400) {
      const params = body.invalidParams as { name?: unknown; code?: unknown; reason?: unknown }[] | undefined;
      if (
        !Array.isArray(params) ||
        !params.length ||
        params.some((p) => typeof p.name !== 'string' || typeof p.code !== 'string' || typeof p.reason !== 'string')
      ) {
        this.add(label, res, 'a 400 without proper invalidParams');
      }
    }
    return res;
  }

  /**
   * Checks the shape and that the status is `status`; for a 400, that invalidParams names `name` (exactly, or a
   * field below it) and, when given, with `code`.
   */
  expect(label: string, res: LightMyRequestResponse, status: number, name?: string, code?: string): LightMyRequestResponse {
    this.check(label, res);
    if (res.statusCode !== status) return this.add(label, res, `expected ${status}`);
    if (status === 400 && name !== undefined) {
      const params = (res.json().invalidParams ?? []) as { name: string; code: string }[];
      const named = params.filter((p) => p.name === name || p.name.startsWith(`${name}.`));
      if (!named.length) this.add(label, res, `invalidParams do not name ${name}`);
      else if (code && !named.some((p) => p.code === code)) this.add(label, res, `invalidParams name ${name} without code ${code}`);
    }
    return res;
  }

  private add(label: string, res: LightMyRequestResponse, what: string): LightMyRequestResponse {
    this.found.push(`${label}: ${res.statusCode} ${what}: ${res.body.slice(0, 300)}`);
    return res;
  }
}
