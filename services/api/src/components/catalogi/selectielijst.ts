import { z } from 'zod';
import type { Deps } from '../../common/platform/component';
import type { InvalidParam } from '../../common/http/errors';
import { uuidAtEnd } from '../../common/http/urls';

/** What the Selectielijst (referentielijsten) API says about one URL. */
export type Lookup<T> = { ok: true; value: T } | { ok: false; error: InvalidParam };

/**
 * The referentielijsten' resources as this API reads them, checked where they enter: the fields it decides on typed,
 * what tells one kind from another required, the rest kept as it came.
 */
const Procestype = z.looseObject({ nummer: z.number(), naam: z.string().nullish() }).refine((b) => 'naam' in b && !('procesType' in b));
const SelectielijstResultaat = z
  .looseObject({ procesType: z.string(), procestermijn: z.string().nullish(), waardering: z.string().nullish(), bewaartermijn: z.string().nullish() })
  .refine((b) => 'procestermijn' in b);
const Resultaattypeomschrijving = z.looseObject({ omschrijving: z.string(), definitie: z.unknown() }).refine((b) => 'definitie' in b);

/**
 * Whether two referentielijsten URLs name the same object: by the UUID they end in, so the platform's own
 * `/referentielijsten/api/v1/procestypen/<uuid>` and selectielijst.openzaak.nl's (or another alias's) are one procestype;
 * URLs without a UUID only when equal.
 */
export function sameObject(a: string, b: string): boolean {
  const ua = uuidAtEnd(a);
  const ub = uuidAtEnd(b);
  return ua && ub ? ua === ub : a === b;
}

/**
 * A small client for the referentielijsten. The platform's own (the default REFERENTIELIJSTEN_URL) and its aliases
 * answer in process (Deps.fetchJson), any other URL is fetched. A URL that does not answer is `bad-url`; one that does
 * not answer with the expected resource is `invalid-resource` (the codes the VNG tests expect).
 */
export class SelectielijstClient {
  constructor(private readonly deps: Deps) {}

  private get base(): string {
    return this.deps.config.REFERENTIELIJSTEN_URL.replace(/\/$/, '');
  }

  private async fetch<S extends z.ZodType>(name: string, url: string, schema: S): Promise<Lookup<z.output<S>>> {
    const res = await this.deps.fetchJson(url);
    if (res.status === 0) return { ok: false, error: { name, code: 'bad-url', reason: `De URL ${url} kon niet worden opgehaald.` } };
    if (res.status !== 200) return { ok: false, error: { name, code: 'bad-url', reason: `De URL ${url} gaf status ${res.status}.` } };
    const body = schema.safeParse(res.body);
    if (!body.success)
      return { ok: false, error: { name, code: 'invalid-resource', reason: `De URL ${url} wijst niet naar het juiste soort resource.` } };
    return { ok: true, value: body.data };
  }

  /** `selectielijstProcestype` of a zaaktype. */
  procestype(name: string, url: string): Promise<Lookup<z.output<typeof Procestype>>> {
    return this.fetch(name, url, Procestype);
  }

  /** `selectielijstklasse` of a resultaattype. */
  resultaat(name: string, url: string): Promise<Lookup<z.output<typeof SelectielijstResultaat>>> {
    return this.fetch(name, url, SelectielijstResultaat);
  }

  /** `resultaattypeomschrijving` of a resultaattype. */
  resultaattypeomschrijving(name: string, url: string): Promise<Lookup<z.output<typeof Resultaattypeomschrijving>>> {
    return this.fetch(name, url, Resultaattypeomschrijving);
  }

  /** Whether the URL belongs to the configured referentielijsten API (informational; foreign URLs are still fetched). */
  isConfigured(url: string): boolean {
    return url.startsWith(`${this.base}/`);
  }
}
