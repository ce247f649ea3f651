import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

export type { Span };
import { scrub, scrubUrl } from './logger';

/**
 * Traces (OpenTelemetry), the part every service shares. `startTracing` (./tracing-sdk, imported first by each
 * service's main) installs the SDK; the helpers here carry a trace across what the instrumentations do not see: a
 * write's outbox event (stored with the write, published later by the relay) and the Kafka messages of the relay and
 * the consumers. Without tracing installed they cost next to nothing: there is no active span, nothing is stored.
 */
const tracer = () => trace.getTracer('zgw');

/** The W3C trace context of a write, as stored with its outbox event and sent as Kafka headers. */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/** The active trace context, if a span is recording (tracing is on and this is part of a trace). */
export function currentTrace(): TraceContext | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) } : undefined;
}

/** The context a stored trace context or a message's headers name (the root context without one). */
export function contextOf(headers: Record<string, unknown> | TraceContext | undefined): Context {
  if (!headers) return ROOT_CONTEXT;
  const text: Record<string, string> = {};
  for (const key of ['traceparent', 'tracestate']) {
    const v = (headers as Record<string, unknown>)[key];
    const one = Array.isArray(v) ? v[0] : v;
    if (one !== undefined && one !== null) text[key] = Buffer.isBuffer(one) ? one.toString('utf8') : String(one);
  }
  return text.traceparent ? propagation.extract(ROOT_CONTEXT, text) : ROOT_CONTEXT;
}

/** A span's context to store with what continues it later (undefined when it is not recording). */
export function traceOf(span: Span): TraceContext | undefined {
  const h = traceHeaders(span);
  return h.traceparent ? { traceparent: h.traceparent, ...(h.tracestate ? { tracestate: h.tracestate } : {}) } : undefined;
}

/** The headers that carry a span's context to the next process (`traceparent`, `tracestate`). */
export function traceHeaders(span: Span): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier;
}

/** A Kafka message's PRODUCER span, child of the trace the event was stored with (a root span without one). */
export function startSendSpan(topic: string, stored: TraceContext | undefined): Span {
  return tracer().startSpan(`send ${topic}`, { kind: SpanKind.PRODUCER, attributes: messaging(topic, 'send') }, contextOf(stored));
}

/** A started CONSUMER span for a message (ended by the caller), for handlers that take messages in chunks. */
export function startConsumeSpan(topic: string, headers: Record<string, unknown> | undefined): Span {
  return tracer().startSpan(`process ${topic}`, { kind: SpanKind.CONSUMER, attributes: messaging(topic, 'process') }, contextOf(headers));
}

/** Ends spans, marked failed with `failure` when given. */
export function endSpans(spans: Span[], failure?: string): void {
  for (const span of spans) (failure ? span.setStatus({ code: SpanStatusCode.ERROR, message: failure }) : span).end();
}

/** Runs `fn` with `span` (or the context of a stored trace) as the active context. */
export function withTrace<T>(parent: Span | TraceContext | undefined, fn: () => T): T {
  if (!parent) return fn();
  const ctx = 'spanContext' in parent ? trace.setSpan(ROOT_CONTEXT, parent) : contextOf(parent);
  return context.with(ctx, fn);
}

function messaging(topic: string, operation: string): Attributes {
  return { 'messaging.system': 'kafka', 'messaging.destination.name': topic, 'messaging.operation.name': operation };
}

/**
 * A span attribute as it may leave the process: BSN-like values masked as in the logs, URLs and queries with the
 * value of every BSN parameter masked whatever its form.
 */
export function scrubAttribute(key: string, value: unknown): unknown {
  if (typeof value === 'string') {
    if (/url|target|query|route|path/i.test(key))
      return value.startsWith('?') || /query/i.test(key) ? scrubUrl(`?${value.replace(/^\?/, '')}`).slice(1) : scrubUrl(value);
    return scrub(value);
  }
  if (Array.isArray(value)) return value.map((v) => scrubAttribute(key, v));
  return value;
}
