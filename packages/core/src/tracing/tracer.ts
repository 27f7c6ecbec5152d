/**
 * The framework's one tracer, and the cheap question asked before any tracing work: has anybody
 * registered an OpenTelemetry SDK? Without one, the API hands out no-op spans anyway; answering
 * first also skips building attributes, links and trace headers nobody would see.
 */
import { ProxyTracerProvider, trace, type Tracer } from '@opentelemetry/api';

export const TRACER_NAME = '@protean-ts/core';

/**
 * True once a tracer provider is registered (`trace.setGlobalTracerProvider`, an SDK's
 * `register()`). Asked on every traced call, not cached: an SDK may be registered after import.
 */
export function tracingEnabled(): boolean {
  const provider = trace.getTracerProvider();
  // Without a registered SDK the API answers with its own proxy, which has no delegate. A proxy
  // from another copy of the API means somebody registered one through that copy.
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer(TRACER_NAME) !== undefined;
}

export function proteanTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}
