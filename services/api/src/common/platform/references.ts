import type { Deps } from './deps';
import { ZgwError, type InvalidParam } from '../http/errors';
import type { Answer } from './resource';
import type { CatalogiDocs, CatalogiLinks, CatalogiResources } from './links';
import type { Stored } from '../storage/store';

export type CatalogiType = keyof CatalogiDocs;

/** What a JSON document must look like to count as the resource a field refers to. */
export type Shape = (body: object) => boolean;
export const hasKeys =
  (...keys: string[]): Shape =>
  (body) =>
    keys.every((k) => k in body);

/**
 * Checks of the URLs a zaak and its parts refer to. Catalogi objects of this platform resolve in-process (through
 * the Catalogi read cache); anything else is fetched: no answer or not 200 is `bad-url`, an answer that is not the
 * expected resource is `invalid-resource`.
 */
export class References {
  constructor(
    private readonly deps: Deps,
    private readonly catalogi: CatalogiLinks,
  ) {}

  /** The stored Catalogi object `url` points at, or the error for field `name`. */
  async catalogus<K extends CatalogiType>(type: K, name: string, url: string): Promise<{ doc?: Stored<CatalogiDocs[K]>; error?: InvalidParam }> {
    const resources: CatalogiResources = this.catalogi;
    const resource = resources[type];
    const uuid = resource.uuidOf(url);
    if (uuid) {
      const doc = await this.catalogi.api.cached(`doc:${url}`, async () => (await resource.store.get(uuid)) ?? null);
      if (doc) return { doc };
      return { error: { name, code: 'bad-url', reason: `${url} bestaat niet.` } };
    }
    // One of this platform's Catalogi URLs: another kind of object is `invalid-resource`, no object at all `bad-url`.
    if (this.isCatalogiUrl(url)) {
      return (await this.anyCatalogiObject(url))
        ? { error: { name, code: 'invalid-resource', reason: `${url} is geen ${resource.def.resource}.` } }
        : { error: { name, code: 'bad-url', reason: `${url} bestaat niet.` } };
    }
    const remote = await this.remote(name, url, () => false);
    return { error: remote ?? { name, code: 'invalid-resource', reason: `${url} is geen ${resource.def.resource} van deze Catalogi API.` } };
  }

  async mustCatalogus<K extends CatalogiType>(type: K, name: string, url: string): Promise<Stored<CatalogiDocs[K]>> {
    const r = await this.catalogus(type, name, url);
    if (r.error) throw ZgwError.validation([r.error]);
    return r.doc!;
  }

  /** A URL to another API: `bad-url` when it does not answer 200, `invalid-resource` when the answer is not `shape`. */
  async remote(name: string, url: string, shape: Shape): Promise<InvalidParam | undefined> {
    return (await this.remoteObject(name, url, shape)).error;
  }

  /** As `remote`, with the object the URL answered when it is of that shape. */
  async remoteObject(name: string, url: string, shape: Shape): Promise<{ error?: InvalidParam; body?: object }> {
    const { status, body } = await this.deps.fetchJson(url);
    if (status !== 200) return { error: { name, code: 'bad-url', reason: `De URL ${url} gaf status ${status || 'geen antwoord'}.` } };
    if (!body || typeof body !== 'object' || Array.isArray(body) || !shape(body)) {
      return { error: { name, code: 'invalid-resource', reason: `De URL ${url} wijst niet naar het verwachte soort object.` } };
    }
    return { body };
  }

  /** A document by URL: one of this platform's documents read in-process (404 when gone), any other fetched. */
  async informatieobject(url: string): Promise<{ status: number; body: unknown }> {
    const local = await this.deps.components.documenten?.document(url);
    if (local !== undefined) return local ? { status: 200, body: local } : { status: 404, body: undefined };
    return this.deps.fetchJson(url);
  }

  /**
   * A JSON object by URL as the rules and the archiving dates read it: this platform's documents, besluiten and zaken
   * in-process (404 when gone; a request to ourselves would carry no credentials), anything else fetched.
   */
  async json(url: string): Promise<{ status: number; body: unknown }> {
    const readers = [
      (u: string) => this.deps.components.documenten?.document(u),
      (u: string) => this.deps.components.besluiten?.besluit(u),
      (u: string) => this.zaak(u),
    ];
    for (const read of readers) {
      const local = await read(url);
      if (local !== undefined) return local ? { status: 200, body: local } : { status: 404, body: undefined };
    }
    return this.deps.fetchJson(url);
  }

  /** One of this platform's zaken as its API shows it: undefined when the URL is not ours, null when it is gone. */
  private async zaak(url: string): Promise<Answer<object> | null | undefined> {
    const zaken = this.deps.components.zaken?.zaken;
    const uuid = zaken?.uuidOf(url);
    if (!zaken || !uuid) return undefined;
    const doc = await zaken.store.get(uuid);
    return doc ? zaken.toApi(doc) : null;
  }

  /** Whether a URL of this platform's Catalogi API is any object of it (a statustype where a zaaktype belongs). */
  private async anyCatalogiObject(url: string): Promise<boolean> {
    for (const r of this.catalogi.api.resources) {
      const uuid = r.uuidOf(url);
      if (uuid && (await r.store.get(uuid))) return true;
    }
    return false;
  }

  private isCatalogiUrl(url: string): boolean {
    return url.startsWith(`${this.deps.urls.api('catalogi')}/`);
  }
}

/** Collects field errors of several checks and throws them together. */
export function throwIfAny(errors: (InvalidParam | undefined)[]): void {
  const real = errors.filter((e): e is InvalidParam => e !== undefined);
  if (real.length) throw ZgwError.validation(real);
}
