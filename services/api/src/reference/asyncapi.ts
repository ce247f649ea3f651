import { z } from 'zod';
import { stringify } from 'yaml';
import {
  AUDIT_READS_TOPIC,
  AUDIT_TOPIC,
  AuditEntry,
  CE_CONTENT_TYPE,
  CE_SPECVERSION,
  CE_TYPE_PREFIX,
  ceSource,
  KANALEN,
  Notificatie,
  ReadEntry,
  releaseLabel,
  tenantTopic,
  type Config,
} from '@zgw/shared';
import { CACHE_TOPIC, CacheClear } from '../common/storage/cache';

/** A topic the platform publishes: its name (without prefix), what is on it, and the payload's schema. */
interface Topic {
  /** The channel's id; its address too (after the prefix) unless `address` says otherwise. */
  name: string;
  /** An address with parameters (`{kanaal}`, `{tenant}`), for the topics of the kanalen clients register. */
  address?: string;
  /** The topic part of `ce_type`, when it is not the address's (a copy on another topic keeps its kanaal's type). */
  typeTopic?: string;
  description: string;
  message: string;
  payload: z.ZodType;
  /** What follows `nl.zgw.<topic>.` in `ce_type`. */
  typeSuffix: string;
  /** Whether `ce_subject` (the resource URL) is always there. */
  subject: boolean;
  key: string;
}

/**
 * Every topic the platform publishes. A new topic is added here, or the contract test fails on its messages
 * (scripts/asyncapi-check.js reads every topic of the test run).
 */
export const TOPICS: readonly Topic[] = [
  ...KANALEN.map((k) => ({
    name: k,
    description: `Notifications of kanaal \`${k}\`, as the Notificaties API delivers them to abonnementen (one per create, update and delete).`,
    message: 'Notificatie',
    payload: Notificatie,
    typeSuffix: '<resource>.<actie>',
    subject: true,
    key: 'the hoofdObject URL (all events of one zaak, document or besluit in order)',
  })),
  {
    name: 'nrc-kanaal',
    address: 'nrc.{kanaal}',
    description:
      'Notifications of a kanaal that a client registered through the Notificaties API (`POST /kanaal`): one topic per kanaal, `nrc.<naam>` (a naam of other characters than letters, digits, `_` and `-`: `nrc.h.<sha-256 of the naam>`).',
    message: 'Notificatie',
    payload: Notificatie,
    typeSuffix: '<resource>.<actie>',
    subject: true,
    key: 'the hoofdObject URL',
  },
  {
    name: AUDIT_TOPIC,
    description:
      'The audit trail of writes: one entry per create, update, partial update and delete of an audited resource, in the AuditTrail schema.',
    message: 'AuditEntry',
    payload: AuditEntry,
    typeSuffix: '<resource>.<actie>',
    subject: true,
    key: 'the hoofdObject URL',
  },
  {
    name: AUDIT_READS_TOPIC,
    description: 'The audit trail of reads: who read which zaken, documents and besluiten (detail, list, `_zoek`, download); BSNs masked.',
    message: 'ReadEntry',
    payload: ReadEntry,
    typeSuffix: '<resource>.<actie>',
    subject: false,
    key: 'none',
  },
  {
    name: CACHE_TOPIC,
    description: 'Between API instances: read-cache regions an instance wrote to, which the others clear. Internal; kept ten minutes.',
    message: 'CacheClear',
    payload: CacheClear,
    typeSuffix: 'clear',
    subject: false,
    key: 'none',
  },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The topics of each organisation's own notifications, published with KAFKA_TENANT_TOPICS. */
export const TENANT_TOPIC: Topic = {
  name: 'tenant-kanaal',
  address: tenantTopic('{tenant}', '{kanaal}'),
  typeTopic: '{kanaal}',
  description:
    "Every notification of a kanaal (of the standard's, or `nrc.<naam>` of one a client registered) once more, as it is, on a topic of its organisation alone: `tenant.<rsin>.<kanaal>` (only with KAFKA_TENANT_TOPICS=true).",
  message: 'Notificatie',
  payload: Notificatie,
  typeSuffix: '<resource>.<actie>',
  subject: true,
  key: 'the hoofdObject URL',
};

const PARAMETERS: Record<string, string> = {
  kanaal: 'The naam of the kanaal as registered (or `h.<sha-256>` of it).',
  tenant: 'The RSIN of the organisation.',
};

/** The CloudEvents headers of the messages of a topic, as a schema (values are strings, as Kafka headers are). */
function headers(t: Topic): Record<string, unknown> {
  // the topic part of the type: the topic with characters other than letters, digits, `_` and `-` as `_`
  const typeTopic = t.typeTopic ?? t.address;
  const topic = typeTopic ? escape(typeTopic.replace(/[^A-Za-z0-9_{}-]/g, '_')).replace(/\\\{[a-z]+\\\}/g, '[A-Za-z0-9_-]+') : escape(t.name);
  const type = `^${escape(`${CE_TYPE_PREFIX}.`)}${topic}\\.${t.typeSuffix === 'clear' ? 'clear' : '[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+'}$`;
  return {
    type: 'object',
    required: ['event-id', 'ce_specversion', 'ce_id', 'ce_source', 'ce_type', 'ce_time', 'content-type', ...(t.subject ? ['ce_subject'] : [])],
    properties: {
      'event-id': { type: 'string', description: 'The event id: the same in a message sent twice (at least once: consumers deduplicate on it).' },
      ce_specversion: { type: 'string', const: CE_SPECVERSION },
      ce_id: { type: 'string', description: 'CloudEvents `id`: equal to `event-id`.' },
      ce_source: {
        type: 'string',
        minLength: 1,
        description:
          'CloudEvents `source`: `urn:nld:oin:<ZGW_OIN>:systeem:zgw` (NL GOV profile), or the base URL of the installation when ZGW_OIN is not set.',
      },
      ce_type: {
        type: 'string',
        pattern: type,
        description: `CloudEvents \`type\`: \`${CE_TYPE_PREFIX}.${typeTopic ? typeTopic.replace('.', '_') : t.name}.${t.typeSuffix}\`.`,
      },
      ce_time: { type: 'string', format: 'date-time', description: "CloudEvents `time`: when it happened (the payload's aanmaakdatum)." },
      ce_subject: { type: 'string', format: 'uri', description: 'CloudEvents `subject`: the URL of the resource the event is about.' },
      ce_tenant: {
        type: 'string',
        pattern: '^[0-9]{9}$',
        description: 'CloudEvents extension `tenant`: the RSIN of the tenant (organisation) whose write or read made the event (docs/tenants.md).',
      },
      'content-type': { type: 'string', const: CE_CONTENT_TYPE },
      traceparent: {
        type: 'string',
        pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
        description: 'W3C trace context of the write that caused the message (when traced; see docs/operating.md).',
      },
      tracestate: { type: 'string', description: 'W3C trace state, with traceparent.' },
    },
  };
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  // as a consumer reads it: fields may be added in later releases (no additionalProperties: false)
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  return rest;
}

/**
 * The AsyncAPI 3.0 document of the Kafka topics: channels with their addresses (the topic prefix of this
 * installation included), one message each with its CloudEvents headers and the payload schema generated from the
 * zod schemas the services use.
 */
export function asyncApiDocument(config: Config): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const t of config.KAFKA_TENANT_TOPICS === 'true' ? [...TOPICS, TENANT_TOPIC] : TOPICS) {
    schemas[t.message] ??= jsonSchema(t.payload);
    const id = `${t.name}.${t.message}`;
    messages[id] = {
      name: t.message,
      title: `${t.message} on ${t.name}`,
      contentType: CE_CONTENT_TYPE,
      headers: headers(t),
      payload: { $ref: `#/components/schemas/${t.message}` },
      bindings: { kafka: { key: { type: 'string', description: `Message key: ${t.key}.` } } },
    };
    channels[t.name] = {
      address: `${config.KAFKA_TOPIC_PREFIX}${t.address ?? t.name}`,
      description: t.description,
      messages: { [t.message]: { $ref: `#/components/messages/${id}` } },
      ...(t.address
        ? { parameters: Object.fromEntries([...t.address.matchAll(/\{([a-z]+)\}/g)].map(([, p]) => [p, { description: PARAMETERS[p!] }])) }
        : {}),
    };
    operations[`publish-${t.name}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${t.name}` },
      messages: [{ $ref: `#/channels/${t.name}/messages/${t.message}` }],
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'ZGW platform: Kafka topics',
      version: releaseLabel(),
      description:
        'The topics this platform publishes to Kafka. Each message is JSON; CloudEvents 1.0 attributes travel as Kafka headers (binary content mode). Delivery is at least once: deduplicate on `event-id`.',
    },
    defaultContentType: CE_CONTENT_TYPE,
    servers: {
      kafka: { host: config.KAFKA_BROKERS.split(',')[0]!.trim(), protocol: 'kafka', description: `Events of source ${ceSource(config)}` },
    },
    channels,
    operations,
    components: { messages, schemas },
  };
}

/** The document as JSON and YAML, made once. */
export function asyncApiTexts(config: Config): { json: string; yaml: string; doc: Record<string, unknown> } {
  const doc = asyncApiDocument(config);
  return { doc, json: JSON.stringify(doc), yaml: stringify(doc) };
}
