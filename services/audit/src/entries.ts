import type { z } from 'zod';
import {
  AUDIT_READS_COLLECTION,
  AUDIT_READS_TOPIC,
  AUDIT_TOPIC,
  AUDITTRAIL_COLLECTION,
  AuditEntry,
  READ_EXPIRY_FIELD,
  ReadEntry,
  shownObjects,
} from '@zgw/shared';

/** An entry as stored: the message's entry with `_id` = its uuid (as the API stores the entries it writes itself). */
export type StoredEntry = { _id: string; uuid: string } & Record<string, unknown>;

/**
 * A read entry as stored: with its aanmaakdatum as a date (which the TTL index of AUDIT_READS_RETENTION_DAYS expires
 * it by), and with the objects it showed, each written out whole (`[resource, url, index]`, where the message may name
 * one by its index alone). An entry of an older API names one main object (`hoofdObject`) at most:
 * that object is the one it showed.
 */
function storedRead(entry: StoredEntry): StoredEntry | string {
  if (entry.hoofdObjecten !== undefined) {
    // (both of the form the schema gives them: REQUIRED checked that)
    const shown = entry.getoond === undefined ? undefined : shownObjects(entry as unknown as ReadEntry);
    if (!shown) return 'getoond does not match hoofdObjecten';
    entry.getoond = shown;
  } else if (typeof entry.hoofdObject === 'string') {
    entry.hoofdObjecten = [entry.hoofdObject];
    entry.getoond = [[entry.resource, typeof entry.resourceUrl === 'string' ? entry.resourceUrl : entry.hoofdObject, 0]];
  }
  return { ...entry, [READ_EXPIRY_FIELD]: new Date(String(entry.aanmaakdatum)) };
}

export type AuditCollection = typeof AUDITTRAIL_COLLECTION | typeof AUDIT_READS_COLLECTION;

/** The collection each consumed topic (without its prefix) is stored in. */
export const COLLECTION_OF: Readonly<Record<string, AuditCollection>> = {
  [AUDIT_TOPIC]: AUDITTRAIL_COLLECTION,
  [AUDIT_READS_TOPIC]: AUDIT_READS_COLLECTION,
};

/**
 * What an entry must have to be stored, from the shared schemas of the two topics: its uuid (the `_id`), its moment,
 * what the indexes and the auditor's queries use, and what says what happened. Other fields are kept as they are (a
 * newer API may add some).
 */
const REQUIRED: Readonly<Record<string, z.ZodType<Record<string, unknown>>>> = {
  [AUDIT_TOPIC]: AuditEntry.pick({
    uuid: true,
    aanmaakdatum: true,
    bron: true,
    actie: true,
    hoofdObject: true,
    resource: true,
    resourceUrl: true,
  }).loose(),
  [AUDIT_READS_TOPIC]: ReadEntry.pick({
    uuid: true,
    aanmaakdatum: true,
    bron: true,
    actie: true,
    clientId: true,
    resource: true,
    hoofdObject: true,
    hoofdObjecten: true,
    getoond: true,
    resourceUrl: true,
  }).loose(),
};

/** Why a message is refused, by the first field the schema refuses: names fields, never values. */
function reasonOf(error: z.ZodError, data: Record<string, unknown>): string {
  const issue = error.issues[0];
  const field = String(issue?.path[0] ?? '');
  if (field === 'uuid' || field === 'aanmaakdatum') return `no valid ${field}`;
  if (field === 'hoofdObjecten') return 'hoofdObjecten is not a list of strings';
  if (data[field] === undefined) return `no ${field}`;
  return issue?.code === 'invalid_type' ? `${field} is not a ${issue.expected}` : `${field} is not valid`;
}

export type Parsed = { entry: StoredEntry; reason?: undefined } | { entry?: undefined; reason: string };

/**
 * Reads one message of `topic` (`audit` or `audit-reads`) into the entry to store, or says why it cannot be stored.
 * The reason names fields, never values (an entry may hold personal data).
 */
export function parseEntry(topic: string, value: Buffer | null | undefined): Parsed {
  const required = REQUIRED[topic];
  if (!required) return { reason: `unknown topic` };
  if (!value?.length) return { reason: 'empty message' };
  let data: unknown;
  try {
    data = JSON.parse(value.toString('utf8'));
  } catch {
    return { reason: 'not JSON' };
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { reason: 'not a JSON object' };
  const parsed = required.safeParse(data);
  if (!parsed.success) return { reason: reasonOf(parsed.error, data as Record<string, unknown>) };
  const entry = parsed.data;
  // MongoDB refuses top-level field names with a leading `$`; `_id` is ours to set.
  for (const key of Object.keys(entry))
    if (key.startsWith('$') || key === '_id') return { reason: `field name ${key.startsWith('$') ? 'starting with $' : '_id'}` };
  const stored = { _id: entry.uuid, ...entry } as StoredEntry;
  if (topic !== AUDIT_READS_TOPIC) return { entry: stored };
  const read = storedRead(stored);
  return typeof read === 'string' ? { reason: read } : { entry: read };
}
