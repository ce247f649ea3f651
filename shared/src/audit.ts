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

/** An entry of the standard's AuditTrail schema (ZRC/DRC/BRC `AuditTrail`). */
export interface AuditEntry {
  uuid: string;
  bron: 'ZRC' | 'DRC' | 'BRC' | 'ZTC' | 'AC' | 'NRC';
  applicatieId: string;
  applicatieWeergave: string;
  gebruikersId: string;
  gebruikersWeergave: string;
  actie: string;
  actieWeergave: string;
  resultaat: number;
  hoofdObject: string;
  resource: string;
  resourceUrl: string;
  toelichting: string;
  resourceWeergave: string;
  aanmaakdatum: string;
  wijzigingen: { oud: Record<string, unknown> | null; nieuw: Record<string, unknown> | null };
}

/** A read: who read what. A query that held a BSN is recorded with the BSN masked. */
export interface ReadEntry {
  uuid: string;
  bron: AuditEntry['bron'];
  clientId: string;
  /** The applicatie's label (as in write entries), when it has one. */
  applicatieWeergave?: string;
  gebruikersId: string;
  gebruikersWeergave: string;
  /** `retrieve` (detail), `list`, `zoek` or `download`. */
  actie: 'retrieve' | 'list' | 'zoek' | 'download';
  resource: string;
  /** The request path with its query string (BSNs masked). */
  request: string;
  /** Detail and download: the object read; its hoofdObject (e.g. the zaak) when known. */
  resourceUrl?: string;
  hoofdObject?: string;
  /**
   * Every zaak, document and besluit whose own trail shows this read (the main objects of what it showed), for the
   * trails' index; `getoond` names each object shown: `[resource, resourceUrl, index into hoofdObjecten]` (the
   * object read first, then what a list returned and what an expand added).
   */
  hoofdObjecten?: string[];
  getoond?: [string, string, number][];
  /** Lists and `_zoek`: the number of results the query matched. */
  aantal?: number;
  /** `_zoek`: the search filters of the request body (BSNs masked). */
  zoek?: Record<string, unknown>;
  resultaat: number;
  aanmaakdatum: string;
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
