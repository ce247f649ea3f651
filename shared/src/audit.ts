import { createHash } from 'node:crypto';
import { z } from 'zod';
import { inParts } from './in-parts';

/**
 * The audit trail's contract between the API (producer) and services/audit (consumer).
 *
 * Writes: every write of an audited resource puts an {@link AuditEntry} in the outbox of the written document (topic
 * {@link AUDIT_TOPIC}, event id = entry uuid), so the entry and the change are stored atomically; the API also stores
 * the entry itself right after the write (read-your-writes), and the worker stores what reaches it: both by `_id` =
 * uuid and only if absent, so an entry is never stored twice.
 *
 * Reads: every read (detail, list, `_zoek`, download) of an audited component produces a {@link ReadEntry} on topic
 * {@link AUDIT_READS_TOPIC} (event id = entry uuid), unless the client id matches the exclusions. The worker stores
 * them by `_id` = uuid only if absent.
 */

export const AUDIT_TOPIC = 'audit';
export const AUDIT_READS_TOPIC = 'audit-reads';
/** Collection of write entries (the `/audittrail` endpoints); `_id` is the entry uuid. */
export const AUDITTRAIL_COLLECTION = 'audittrail';
/** Collection of read entries; `_id` is the entry uuid. */
export const AUDIT_READS_COLLECTION = 'auditreads';
/** Settings document (collection `settings`) that holds the platform's exclusions set by a platform administrator. */
export const AUDIT_EXCLUSIONS_SETTING = 'audit.excludeClientIds';
/** The settings document of a tenant's own exclusions (for the reads made in that tenant only). */
export const tenantExclusionsId = (tenant: string): string => `${AUDIT_EXCLUSIONS_SETTING}@${tenant}`;

const Bron = z.enum(['ZRC', 'DRC', 'BRC', 'ZTC', 'AC', 'NRC']);

/** An entry of the standard's AuditTrail schema (ZRC/DRC/BRC `AuditTrail`): the payload of topic `audit`. */
export const AuditEntry = z
  .object({
    uuid: z.string().uuid(),
    bron: Bron,
    applicatieId: z.string(),
    applicatieWeergave: z.string(),
    gebruikersId: z.string(),
    gebruikersWeergave: z.string(),
    actie: z.string(),
    actieWeergave: z.string(),
    resultaat: z.number().int(),
    hoofdObject: z.string(),
    resource: z.string(),
    resourceUrl: z.string(),
    toelichting: z.string(),
    resourceWeergave: z.string(),
    aanmaakdatum: z.string().datetime({ offset: true }),
    wijzigingen: z.object({ oud: z.record(z.string(), z.unknown()).nullable(), nieuw: z.record(z.string(), z.unknown()).nullable() }),
  })
  .meta({ description: 'A write in the audit trail, as the AuditTrail schema of the Zaken, Documenten and Besluiten APIs shows it' });
export type AuditEntry = z.infer<typeof AuditEntry>;

/** An object a read showed: its resource, its URL and the index of its main object in `hoofdObjecten`. */
const Getoond = z.tuple([z.string(), z.string(), z.number().int()]);
export type Getoond = z.infer<typeof Getoond>;

/** A read: who read what (the payload of topic `audit-reads`). A query that held a BSN is recorded with the BSN masked. */
export const ReadEntry = z
  .object({
    uuid: z.string().uuid(),
    bron: Bron,
    clientId: z.string(),
    /** The applicatie's label (as in write entries), when it has one. */
    applicatieWeergave: z.string().optional(),
    gebruikersId: z.string(),
    gebruikersWeergave: z.string(),
    /** `retrieve` (detail), `list`, `zoek` or `download`. */
    actie: z.enum(['retrieve', 'list', 'zoek', 'download']),
    resource: z.string(),
    /** The request path with its query string (BSNs masked). */
    request: z.string(),
    /** Detail and download: the object read; its hoofdObject (e.g. the zaak) when known. */
    resourceUrl: z.string().optional(),
    hoofdObject: z.string().optional(),
    /**
     * Every zaak, document and besluit whose own trail shows this read (the main objects of what it showed), for the
     * trails' index; `getoond` names each object shown: `[resource, resourceUrl, index into hoofdObjecten]` (the
     * object read first, then what a list returned and what an expand added), or only that index where the object is
     * that main object itself and of the entry's `resource` (each zaak of a list of zaken: its URL once in the entry).
     */
    hoofdObjecten: z.array(z.string()).optional(),
    getoond: z.array(z.union([z.number().int().min(0), Getoond])).optional(),
    /** Lists and `_zoek`: the number of results the query matched. */
    aantal: z.number().int().optional(),
    /** `_zoek`: the search filters of the request body (BSNs masked). */
    zoek: z.record(z.string(), z.unknown()).optional(),
    resultaat: z.number().int(),
    aanmaakdatum: z.string().datetime({ offset: true }),
    /** The RSIN of the tenant the reader acts for (the trails it goes into are that tenant's). */
    tenant: z.string().optional(),
  })
  .meta({ description: 'A read of the Zaken, Documenten or Besluiten API: who read which objects (BSNs masked)' });
export type ReadEntry = z.infer<typeof ReadEntry>;

/** A read entry as the audit worker stores it: each object shown written out whole. */
export type StoredReadEntry = Omit<ReadEntry, 'getoond'> & { _id: string; getoond?: Getoond[] };

/**
 * The objects a read entry showed, each written out whole (an index alone stands for its main object, of the entry's
 * resource), or undefined when an index points past `hoofdObjecten`.
 */
export function shownObjects(entry: Pick<ReadEntry, 'resource' | 'hoofdObjecten' | 'getoond'>): Getoond[] | undefined {
  const mains = entry.hoofdObjecten ?? [];
  const shown: Getoond[] = [];
  for (const g of entry.getoond ?? []) {
    const i = typeof g === 'number' ? g : g[2];
    if (!(i >= 0 && i < mains.length)) return undefined;
    shown.push(typeof g === 'number' ? [entry.resource, mains[g]!, g] : g);
  }
  return shown;
}

/**
 * An object shown (`resource`, `url`, its main object `main` at index `i`) as an entry of `entryResource` names it: by
 * `i` alone where it is that main object itself, of the entry's resource.
 */
export const compactShown = (entryResource: string, resource: string, url: string, i: number, main: string | undefined): Getoond | number =>
  resource === entryResource && url === main ? i : [resource, url, i];

/** The most a read entry weighs on Kafka (its JSON): a larger one goes as parts (readEntryParts). */
export const READ_ENTRY_BYTES = 256 * 1024;

/**
 * A read entry as parts of at most about `maxBytes` each: a list without pages (all zaakinformatieobjecten of a
 * registration) can show more objects than Kafka takes in one message. Each part is the same read (request, reader,
 * result, count) with a share of the objects shown and their main objects, so each object's trail still shows it.
 * The first part keeps the entry's uuid; the others have one derived from it, the same each time the entry is split
 * (a part sent again is stored once). An entry within `maxBytes` is its own only part.
 */
export function readEntryParts(entry: ReadEntry, maxBytes = READ_ENTRY_BYTES): ReadEntry[] {
  const hoofd = entry.hoofdObjecten ?? [];
  const getoond = shownObjects(entry) ?? [];
  if (Buffer.byteLength(JSON.stringify(entry)) <= maxBytes || (!getoond.length && hoofd.length < 2)) return [entry];
  // what is shown, each with its main object (an entry without `getoond` shares out its main objects alone)
  const items: { shown?: [string, string]; main?: string }[] = getoond.length
    ? getoond.map(([resource, url, i]) => ({ shown: [resource, url], main: hoofd[i] }))
    : hoofd.map((main) => ({ main }));
  const base = Buffer.byteLength(JSON.stringify({ ...entry, hoofdObjecten: [], getoond: [] }));
  // (each item weighed with its main object, also where a part names that one already: a part may come out smaller)
  const weight = (item: (typeof items)[number]) =>
    (item.shown ? bytes(item.shown[0]) + bytes(item.shown[1]) + 16 : 0) + (item.main ? bytes(item.main) + 4 : 0);
  return inParts(items, weight, maxBytes - base).map((share, n) => {
    const mains = new Map<string, number>();
    const shown: (Getoond | number)[] = [];
    const indexOf = (main: string) => {
      const at = mains.get(main) ?? mains.size;
      mains.set(main, at);
      return at;
    };
    for (const item of share) {
      const i = item.main === undefined ? -1 : indexOf(item.main);
      if (item.shown) shown.push(compactShown(entry.resource, item.shown[0], item.shown[1], i, item.main));
    }
    const part: ReadEntry = { ...entry, uuid: partUuid(entry.uuid, n), hoofdObjecten: [...mains.keys()] };
    if (getoond.length) part.getoond = shown;
    else delete part.getoond;
    return part;
  });
}

const bytes = (s: string) => Buffer.byteLength(s);

/** The uuid of part `n` of a read entry: its own for the first, else one derived from it (RFC 9562 version 8). */
function partUuid(uuid: string, n: number): string {
  if (n === 0) return uuid;
  const h = createHash('sha256').update(`${uuid}/${n}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Compiles an exclusion list (comma-separated; each entry an exact client id or a pattern with `*` wildcards) into a
 * matcher of whole client ids, case-insensitive. Empty entries are ignored.
 */
export function clientIdMatcher(list: string | readonly string[]): (clientId: string) => boolean {
  const entries = exclusionList(list);
  if (!entries.length) return () => false;
  const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^(?:${entries.map((e) => e.split('*').map(escape).join('.*')).join('|')})$`, 'i');
  return (clientId) => re.test(clientId);
}

/** Parses and normalises an exclusion list as given (comma-separated string or array): trimmed, no empty entries. */
export function exclusionList(list: string | readonly string[]): string[] {
  return (typeof list === 'string' ? list.split(',') : [...list]).map((e) => e.trim()).filter(Boolean);
}
