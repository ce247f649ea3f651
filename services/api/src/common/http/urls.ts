import { createHash } from 'node:crypto';

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

/** The UUID a URL ends in (lower case; a query or a trailing slash left out), or undefined when it ends in none. */
export function uuidAtEnd(url: string): string | undefined {
  const last = url.split(/[?#]/)[0]!.replace(/\/+$/, '').split('/').pop() ?? '';
  return UUID.test(last) ? last.toLowerCase() : undefined;
}

/** A UUID made from a name (version 5 in form, from SHA-1): the same name always gives the same UUID. */
export function nameUuid(name: string): string {
  const h = createHash('sha1').update(name).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
