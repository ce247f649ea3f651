import type { Deps } from '../../common/platform/component';
import type { InvalidParam } from '../../common/platform/errors';

/** What the Selectielijst (referentielijsten) API says about one URL. */
export type Lookup<T> = { ok: true; value: T } | { ok: false; error: InvalidParam };

export interface Procestype {
  url: string;
  nummer: number;
  naam?: string;
}
export interface SelectielijstResultaat {
  url: string;
  procesType: string;
  procestermijn?: string;
  waardering?: string;
  bewaartermijn?: string | null;
}
export interface Resultaattypeomschrijving {
  url: string;
  omschrijving: string;
}

/**
 * A small client for the configured referentielijsten API. A URL outside that API is `bad-url`; a URL that does not
 * answer with the expected resource is `invalid-resource` (the codes the VNG tests expect).
 */
export class SelectielijstClient {
  constructor(private readonly deps: Deps) {}

  private get base(): string {
    return this.deps.config.REFERENTIELIJSTEN_URL.replace(/\/$/, '');
  }

  private async fetch<T>(name: string, url: string, looksRight: (body: Record<string, unknown>) => boolean): Promise<Lookup<T>> {
    const res = await this.deps.fetchJson(url);
    if (res.status === 0) return { ok: false, error: { name, code: 'bad-url', reason: `De URL ${url} kon niet worden opgehaald.` } };
    if (res.status !== 200) return { ok: false, error: { name, code: 'bad-url', reason: `De URL ${url} gaf status ${res.status}.` } };
    const body = res.body;
    if (!body || typeof body !== 'object' || Array.isArray(body) || !looksRight(body as Record<string, unknown>)) {
      return { ok: false, error: { name, code: 'invalid-resource', reason: `De URL ${url} wijst niet naar het juiste soort resource.` } };
    }
    return { ok: true, value: body as T };
  }

  /** `selectielijstProcestype` of a zaaktype. */
  procestype(name: string, url: string): Promise<Lookup<Procestype>> {
    return this.fetch(name, url, (b) => typeof b.nummer === 'number' && 'naam' in b && !('procesType' in b));
  }

  /** `selectielijstklasse` of a resultaattype. */
  resultaat(name: string, url: string): Promise<Lookup<SelectielijstResultaat>> {
    return this.fetch(name, url, (b) => typeof b.procesType === 'string' && 'procestermijn' in b);
  }

  /** `resultaattypeomschrijving` of a resultaattype. */
  resultaattypeomschrijving(name: string, url: string): Promise<Lookup<Resultaattypeomschrijving>> {
    return this.fetch(name, url, (b) => typeof b.omschrijving === 'string' && 'definitie' in b);
  }

  /** Whether the URL belongs to the configured referentielijsten API (informational; foreign URLs are still fetched). */
  isConfigured(url: string): boolean {
    return url.startsWith(`${this.base}/`);
  }
}
