import { createTraceState } from '@opentelemetry/api';
import type { Tracing } from '@zgw/shared/dist/tracing-sdk';
import { OpenTelemetryActivityInboundInterceptor, type OpenTelemetrySinks, type SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerOptions } from '@temporalio/worker';

/**
 * What the worker needs for traces through Temporal: the workflow interceptors (workflow-interceptors.ts), the
 * activity interceptor (each activity a span, child of the workflow's; its HTTP calls children of that), and the sink
 * that takes the workflow's spans out of the sandbox into this process's span processor. Nothing without tracing.
 */
export function tracedWorker(tracing: Tracing | undefined): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!tracing) return {};
  const sinks: InjectedSinks<OpenTelemetrySinks> = {
    exporter: {
      export: {
        fn: (info, spans) => {
          for (const span of spans) tracing.processor.onEnd(readable(span, info as unknown as Record<string, string>, tracing));
        },
      },
    },
  };
  return {
    interceptors: {
      workflowModules: [require.resolve('./workflow-interceptors')],
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) })],
    },
    sinks,
  };
}

type Readable = Parameters<Tracing['processor']['onEnd']>[0];

/** A span the workflow made, as the span processor takes it. */
function readable(s: SerializableSpan, info: Record<string, string>, tracing: Tracing): Readable {
  const { traceState, ...context } = s.spanContext;
  const spanContext = { ...context, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
  return {
    name: s.name,
    kind: s.kind,
    spanContext: () => spanContext,
    parentSpanContext: s.parentSpanId ? { traceId: spanContext.traceId, spanId: s.parentSpanId, traceFlags: spanContext.traceFlags } : undefined,
    startTime: s.startTime,
    endTime: s.endTime,
    status: s.status,
    attributes: { ...s.attributes, ...info },
    links: s.links,
    events: s.events,
    duration: s.duration,
    ended: s.ended,
    resource: tracing.resource,
    instrumentationScope: { name: s.instrumentationLibrary.name, version: s.instrumentationLibrary.version },
    droppedAttributesCount: s.droppedAttributesCount,
    droppedEventsCount: s.droppedEventsCount,
    droppedLinksCount: s.droppedLinksCount,
  };
}
