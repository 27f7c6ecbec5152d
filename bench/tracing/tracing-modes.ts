/**
 * The three ways a process can meet protean-ts's instrumentation, installed and removed around
 * each round: nothing registered (what a user without an SDK runs), the API wired to a provider
 * that only hands out non-recording spans (every instrumentation call made, nothing kept), and a
 * real SDK (Node tracer provider, W3C propagator, batch processor, an exporter that drops spans).
 */
import { context, propagation, ProxyTracerProvider, trace } from '@opentelemetry/api';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export type TracingMode = 'no SDK' | 'API only' | 'SDK';
export const MODES: readonly TracingMode[] = ['no SDK', 'API only', 'SDK'];

/** Counts what it would send, so the run can check spans were made; keeps nothing. */
class DroppingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

export interface InstalledMode {
  /** Spans the SDK exported (0 in the other modes). */
  uninstall(): Promise<number>;
}

export function installMode(mode: TracingMode): InstalledMode {
  if (mode === 'no SDK') return { uninstall: async () => 0 };
  if (mode === 'API only') {
    // A provider whose tracers are the API's own no-op ones: protean-ts sees "a provider is
    // registered" and makes every call; no context manager, no propagator.
    const noop = new ProxyTracerProvider();
    trace.setGlobalTracerProvider({ getTracer: (name, version, options) => noop.getTracer(name, version, options) });
    return { uninstall: async () => (trace.disable(), 0) };
  }
  const exporter = new DroppingExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 65_536, scheduledDelayMillis: 200 })] });
  provider.register();
  return {
    async uninstall() {
      await provider.forceFlush();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      return exporter.exported;
    },
  };
}
