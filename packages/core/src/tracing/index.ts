export { SpanNames, SpanAttributes, PROTEAN_MESSAGING_SYSTEM } from './span-names.js';
export { tracingEnabled, proteanTracer, TRACER_NAME } from './tracer.js';
export { inSpan, recordFailure, type SpanSpec } from './in-span.js';
export { flushTracing } from './flush-tracing.js';
export { captureTraceHeaders, contextFromHeaders, linkFromHeaders, type TraceHeaders } from './trace-headers.js';
