/** Builds and recognises the full resource URLs that ZGW uses as identifiers. */
export class Urls {
  constructor(readonly base: string) {}

  api(component: string): string {
    return `${this.base}/${component}/api/v1`;
  }

  resource(component: string, collection: string, uuid: string): string {
    return `${this.api(component)}/${collection}/${uuid}`;
  }

  /** What every URL of `collection` of `component` on this host starts with (see uuidIn). */
  prefix(component: string, collection: string): string {
    return `${this.api(component)}/${collection}/`;
  }

  /** The uuid of a URL of the collection whose URLs start with `prefix`, or undefined. */
  uuidIn(url: string, prefix: string): string | undefined {
    if (!url.startsWith(prefix)) return undefined;
    const end = url.endsWith('/') ? url.length - 1 : url.length;
    const rest = url.slice(prefix.length, end);
    return UUID.test(rest) ? rest : undefined;
  }

  isLocal(url: string): boolean {
    return url.startsWith(`${this.base}/`);
  }
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
