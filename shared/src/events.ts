import type { AuditEntry } from './audit';

/** The ZGW notification message (NRC `Message`), as published on every kanaal topic. */
export interface Notificatie {
  kanaal: string;
  hoofdObject: string;
  resource: string;
  resourceUrl: string;
  actie: string;
  aanmaakdatum: string;
  kenmerken: Record<string, string>;
}

/** A domain event as stored in a resource document's outbox until the relay has published it. */
export interface OutboxEvent {
  id: string;
  topic: string;
  key: string;
  payload: Notificatie | AuditEntry | Record<string, unknown>;
  createdAt: Date;
}

/** Kanalen (one Kafka topic each) as the standards name them. */
export const KANALEN = [
  'autorisaties',
  'zaaktypen',
  'informatieobjecttypen',
  'besluittypen',
  'zaken',
  'documenten',
  'besluiten',
  'overdrachten',
] as const;
export type Kanaal = (typeof KANALEN)[number];

export const EVENT_ID_HEADER = 'event-id';

export function topicName(prefix: string, kanaal: string): string {
  return `${prefix}${kanaal}`;
}
