/** Builds and recognises the full resource URLs that ZGW uses as identifiers. */
export class Urls {
  constructor(readonly base: string) {}

  api(component: string): string {
    return `${this.base}/${component}/api/v1`;
  }

  resource(component: string, collection: string, uuid: string): string {
    return `${this.api(component)}/${collection}/${uuid}`;
  }

  /** The uuid of a URL that points at `collection` of `component` on this host, or undefined. */
  uuidOf(url: string, component: string, collection: string): string | undefined {
    const key = `${component}/${collection}`;
    let prefix = this.prefixes.get(key);
    if (prefix === undefined) this.prefixes.set(key, (prefix = `${this.api(component)}/${collection}/`));
    if (!url.startsWith(prefix)) return undefined;
    const end = url.endsWith('/') ? url.length - 1 : url.length;
    const rest = url.slice(prefix.length, end);
    return UUID.test(rest) ? rest : undefined;
  }

  /** The URL prefix of each collection (uuidOf runs for every link an expansion follows). */
  private readonly prefixes = new Map<string, string>();

  isLocal(url: string): boolean {
    return url.startsWith(`${this.base}/`);
  }
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
