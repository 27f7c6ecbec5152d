/**
 * Registers a real OpenTelemetry SDK (Node tracer provider: AsyncLocalStorage context manager,
 * W3C propagator) that keeps finished spans in memory, for tests that check the spans protean-ts
 * starts and how they chain. `stop()` unregisters everything, so the API is back to no-ops.
 */
import { context, propagation, trace, type SpanContext } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface InMemoryTracing {
  spans(): ReadableSpan[];
  /** The finished spans called `name`, in the order they ended. */
  named(name: string): ReadableSpan[];
  /** The one finished span called `name`; fails when there are none or several. */
  one(name: string): ReadableSpan;
  reset(): void;
  stop(): Promise<void>;
}

export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
  return {
    spans: () => exporter.getFinishedSpans(),
    named,
    one(name) {
      const found = named(name);
      if (found.length !== 1)
        throw new Error(
          `expected one ${name} span, found ${found.length}: ${exporter
            .getFinishedSpans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      return found[0]!;
    },
    reset: () => exporter.reset(),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** The `traceparent` a span's context serializes to (version 00). */
export function traceparentOf(span: { spanContext(): SpanContext }): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-0${traceFlags.toString(16)}`;
}

/** The span id of a finished span's parent, or undefined for a root span. */
export function parentIdOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
