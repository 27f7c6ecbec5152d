/**
 * Runs work inside a span: the span is the active context for the work (so spans and messages
 * created inside become its children), ends when the work settles, and records a failure as an
 * exception with status ERROR. Without a registered SDK the work runs as it is, with no span.
 */
import { context as otelContext, SpanStatusCode, type Attributes, type Context, type Link, type Span, type SpanKind } from '@opentelemetry/api';
import { proteanTracer, tracingEnabled } from './tracer.js';

export interface SpanSpec {
  kind?: SpanKind;
  /** Set when the span starts (samplers see them). */
  attributes?: Attributes;
  /** The parent; default the active context. */
  parent?: Context;
  links?: Link[];
}

/** `work` gets the span (undefined when tracing is off) to add what it learns on the way. */
export function inSpan<R>(name: string, spec: SpanSpec | (() => SpanSpec), work: (span: Span | undefined) => Promise<R>): Promise<R> {
  if (!tracingEnabled()) return work(undefined);
  const { kind, attributes, parent, links } = typeof spec === 'function' ? spec() : spec;
  return proteanTracer().startActiveSpan(name, { kind, attributes, links }, parent ?? otelContext.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks `span` failed by `error` (also for failures that do not throw out of the span's work). */
export function recordFailure(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  else span.recordException(String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
