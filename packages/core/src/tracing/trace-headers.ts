/**
 * The W3C trace context in message headers: captured from the active context when a message is
 * created, turned back into a context (a handler's parent) or a link (an outbox batch's) when it
 * is read. Injection goes through the registered propagator: with none, nothing is captured.
 */
import { context as otelContext, propagation, ROOT_CONTEXT, trace, type Context, type Link } from '@opentelemetry/api';
import type { MessageHeaders } from '../messages/envelope.js';
import { tracingEnabled } from './tracer.js';

export interface TraceHeaders {
  traceparent: string;
  tracestate: string | null;
}

/** The active span's trace context as headers, or undefined (tracing off, no span, no propagator). */
export function captureTraceHeaders(): TraceHeaders | undefined {
  if (!tracingEnabled()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(otelContext.active(), carrier);
  if (!carrier.traceparent) return undefined;
  return { traceparent: carrier.traceparent, tracestate: carrier.tracestate || null };
}

/** The context a message's trace headers describe, with no active span of ours leaking in. */
export function contextFromHeaders(headers: Pick<MessageHeaders, 'traceparent' | 'tracestate'> | undefined): Context {
  if (!headers?.traceparent) return ROOT_CONTEXT;
  const carrier: Record<string, string> = { traceparent: headers.traceparent };
  if (headers.tracestate) carrier.tracestate = headers.tracestate;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** A span link to the trace that produced a message, or undefined when it carries none. */
export function linkFromHeaders(headers: Pick<MessageHeaders, 'traceparent' | 'tracestate'> | undefined): Link | undefined {
  const spanContext = trace.getSpanContext(contextFromHeaders(headers));
  return spanContext ? { context: spanContext } : undefined;
}
