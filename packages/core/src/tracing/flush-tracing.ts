/**
 * Hands the spans an SDK still buffers (a BatchSpanProcessor's queue) to its exporter before the
 * process exits: `protean-ts server` calls it at shutdown. The API has no flush, so the SDK's
 * provider is asked for `forceFlush` when it has one; without an SDK this does nothing.
 */
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import { tracingEnabled } from './tracer.js';

export async function flushTracing(): Promise<void> {
  if (!tracingEnabled()) return;
  const registered = trace.getTracerProvider();
  const provider: unknown = registered instanceof ProxyTracerProvider ? registered.getDelegate() : registered;
  const candidate = (provider as { getDelegate?: () => unknown }).getDelegate?.() ?? provider;
  const flush = (candidate as { forceFlush?: () => Promise<void> }).forceFlush;
  if (typeof flush === 'function') await flush.call(candidate);
}
