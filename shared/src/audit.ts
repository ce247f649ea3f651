import { z } from 'zod';

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
/** Settings document (collection `settings`) that holds the exclusions set by an administrator. */
export const AUDIT_EXCLUSIONS_SETTING = 'audit.excludeClientIds';

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
     * object read first, then what a list returned and what an expand added).
     */
    hoofdObjecten: z.array(z.string()).optional(),
    getoond: z.array(z.tuple([z.string(), z.string(), z.number().int()])).optional(),
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
