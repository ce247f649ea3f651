import type { Config } from './config';
import { EVENT_ID_HEADER } from './events';

/**
 * CloudEvents 1.0 in Kafka's binary content mode: the message value stays the payload as it always was (JSON), and
 * the event's attributes travel as headers `ce_<attribute>` beside `content-type`. Attribute values follow the NL GOV
 * profile for CloudEvents: `source` a URN naming the organisation by its OIN and the system
 * (`urn:nld:oin:<ZGW_OIN>:systeem:zgw`), `type` in reverse-DNS notation (`nl.zgw.<topic>.<resource>.<actie>`).
 */
export const CE_SPECVERSION = '1.0';
export const CE_TYPE_PREFIX = 'nl.zgw';
export const CE_CONTENT_TYPE = 'application/json';

/** The `source` of every event this installation publishes: its OIN when ZGW_OIN is set, else its public base URL. */
export function ceSource(config: Pick<Config, 'ZGW_OIN' | 'PUBLIC_BASE_URL'>): string {
  return config.ZGW_OIN ? `urn:nld:oin:${config.ZGW_OIN}:systeem:zgw` : config.PUBLIC_BASE_URL;
}

/** The `type` of an event on `topic` (the topic's name without prefix) about `resource` and `actie`. */
export function ceType(topic: string, ...parts: string[]): string {
  return [CE_TYPE_PREFIX, ...[topic, ...parts].map((p) => p.replace(/[^A-Za-z0-9_-]/g, '_'))].join('.');
}

/** What the platform's payloads say about themselves (notifications and audit entries all have these). */
interface Described {
  resource?: unknown;
  actie?: unknown;
  aanmaakdatum?: unknown;
  resourceUrl?: unknown;
}

/**
 * The headers of an event with id `id` on `topic`: `event-id` (as always; consumers deduplicate on it), the CloudEvents
 * attributes (with the extension `tenant` when the event is a tenant's) and `content-type`. `time` and `subject` come from the payload's `aanmaakdatum` and `resourceUrl`.
 */
/** The CloudEvents extension attribute naming the tenant (its RSIN) an event belongs to (see tenant.ts). */
export const CE_TENANT = 'ce_tenant';

export function eventHeaders(
  source: string,
  topic: string,
  id: string,
  payload: Described | object,
  at = new Date(),
  tenant?: string,
): Record<string, string> {
  const p = payload as Described;
  const parts = [p.resource, p.actie].filter((x): x is string => typeof x === 'string' && x.length > 0);
  const time = typeof p.aanmaakdatum === 'string' && !Number.isNaN(Date.parse(p.aanmaakdatum)) ? new Date(p.aanmaakdatum) : at;
  return {
    [EVENT_ID_HEADER]: id,
    ce_specversion: CE_SPECVERSION,
    ce_id: id,
    ce_source: source,
    ce_type: ceType(topic, ...parts),
    ce_time: time.toISOString(),
    ...(typeof p.resourceUrl === 'string' && p.resourceUrl ? { ce_subject: p.resourceUrl } : {}),
    ...(tenant ? { [CE_TENANT]: tenant } : {}),
    'content-type': CE_CONTENT_TYPE,
  };
}
