import FastifyOtel from '@fastify/otel';
import { diag, DiagLogLevel, type Attributes } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpGrpc } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as OtlpJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProto } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { scrub } from './logger';
import { scrubAttribute } from './tracing';

/**
 * Installs OpenTelemetry tracing for a service when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set,
 * else nothing (no SDK, no instrumentation: no cost). Imported first by each service's main (through its
 * `src/tracing.ts`), before the modules it instruments are loaded: incoming and outgoing HTTP (node:http, fetch),
 * Fastify's routes and hooks, and the MongoDB driver. Kafka messages carry their trace by the helpers of
 * `./tracing` (the relay's PRODUCER spans are children of the write that stored the event; each consumer's span a
 * child of the message's `traceparent`). The standard `OTEL_*` variables apply (`OTEL_SERVICE_NAME` overrides the
 * service's name, `OTEL_EXPORTER_OTLP_PROTOCOL` picks grpc, http/protobuf (default) or http/json, `OTEL_BSP_*`,
 * `OTEL_TRACES_SAMPLER`, `OTEL_SDK_DISABLED`). Every span leaves the process scrubbed: BSN-like values masked in
 * names, attributes and events, as in the logs; no request or response body is recorded.
 */
export interface Tracing {
  shutdown(): Promise<void>;
  /** Where spans made outside the SDK's tracers go (the transfer worker's workflow spans, from Temporal's sandbox). */
  processor: SpanProcessor;
  resource: Resource;
}

export function startTracing(service: string): Tracing | undefined {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || process.env.OTEL_SDK_DISABLED === 'true') return undefined;
  process.env.OTEL_SERVICE_NAME ||= service;
  // Metrics are Prometheus' (/metrics), logs are the JSON lines: the SDK exports traces only.
  process.env.OTEL_METRICS_EXPORTER ||= 'none';
  process.env.OTEL_LOGS_EXPORTER ||= 'none';
  diag.setLogger(
    {
      error: (m) => process.stderr.write(`otel: ${scrub(m)}\n`),
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.ERROR,
  );
  const processor = new BatchSpanProcessor({ exporter: new Scrubbed(exporter()), ...batchOptions() });
  const resource = resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME });
  const sdk = new NodeSDK({
    resource,
    spanProcessors: [processor],
    instrumentations: [
      new HttpInstrumentation({
        // probes and scrapes are not traced
        ignoreIncomingRequestHook: (req) => /^\/(health|ready|metrics)(\?|$)/.test(req.url ?? ''),
      }),
      new UndiciInstrumentation(),
      new FastifyOtel({ registerOnInitialization: true, ignorePaths: (r) => /^\/(health|ready|metrics)$/.test(r.url) }),
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  const shutdown = () => sdk.shutdown().catch(() => undefined);
  process.once('beforeExit', () => void shutdown());
  return { shutdown, processor, resource };
}

/** The OTLP exporter of the protocol asked for (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or `..._PROTOCOL`). */
function exporter(): SpanExporter {
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || process.env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol === 'grpc') return new OtlpGrpc();
  if (protocol === 'http/json') return new OtlpJson();
  return new OtlpProto();
}

function batchOptions(): { scheduledDelayMillis?: number } {
  const delay = Number(process.env.OTEL_BSP_SCHEDULE_DELAY);
  return Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {};
}

/** Hands the spans on with every string scrubbed (see scrubAttribute): what leaves the process holds no BSN. */
class Scrubbed implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(scrubSpan), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function scrubAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attributes)) out[k] = scrubAttribute(k, v) as Attributes[string];
  return out;
}

function scrubSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: scrub(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status.message ? { ...span.status, message: scrub(span.status.message) } : span.status,
    attributes: scrubAttributes(span.attributes),
    links: span.links.map((l) => (l.attributes ? { ...l, attributes: scrubAttributes(l.attributes) } : l)),
    events: span.events.map((e) => ({ ...e, name: scrub(e.name), ...(e.attributes ? { attributes: scrubAttributes(e.attributes) } : {}) })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
