import { z } from 'zod';
import type { AuditEntry } from './audit';
import type { TraceContext } from './tracing';

/** The ZGW notification message (NRC `Message`), as published on every kanaal topic. */
export const Notificatie = z
  .object({
    kanaal: z.string(),
    hoofdObject: z.string(),
    resource: z.string(),
    resourceUrl: z.string(),
    actie: z.string(),
    aanmaakdatum: z.string().datetime({ offset: true }),
    kenmerken: z.record(z.string(), z.string()),
  })
  .meta({ description: 'A notification as the Notificaties API defines it (Kennisgeving): the payload of every kanaal topic' });
export type Notificatie = z.infer<typeof Notificatie>;

/** A domain event as stored in a resource document's outbox until the relay has published it. */
export interface OutboxEvent {
  id: string;
  topic: string;
  key: string;
  payload: Notificatie | AuditEntry | Record<string, unknown>;
  createdAt: Date;
  /** The trace of the write that stored the event (when traced): its Kafka message continues it. */
  trace?: TraceContext;
  /** The tenant (RSIN) whose write made the event: its message carries it (CloudEvents extension `tenant`). */
  tenant?: string;
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

/** The topic of one organisation's notifications of a kanaal (KAFKA_TENANT_TOPICS), without the prefix. */
export function tenantTopic(tenant: string, kanaal: string): string {
  return `tenant.${tenant}.${kanaal}`;
}

/** Whether a topic (without the prefix) carries notifications: a kanaal of the standard's, or one a client registered. */
export function isKanaalTopic(topic: string): boolean {
  return (KANALEN as readonly string[]).includes(topic) || topic.startsWith('nrc.');
}
