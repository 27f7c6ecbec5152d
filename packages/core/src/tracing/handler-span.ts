/**
 * The `protean.handler.execute` span around one handler's work for one message. Its parent is the
 * trace context the message carries (the span it was created in, maybe in another process), so
 * whatever the handler raises or sends continues that trace; a message without one joins the
 * active context.
 */
import { context as otelContext, SpanKind, type Span } from '@opentelemetry/api';
import type { MessageMetadata } from '../messages/envelope.js';
import { inSpan } from './in-span.js';
import { messageAttributes } from './message-span-attributes.js';
import { PROTEAN_MESSAGING_SYSTEM, SpanAttributes as A, SpanNames } from './span-names.js';
import { contextFromHeaders } from './trace-headers.js';

export interface TracedHandler {
  /** The handler's class name (or a raw subscriber's subscription). */
  name: string;
  /** eventHandler, commandHandler, processManager, projector, subscriber. */
  kind: string;
  /** The subscription (consumer group) it is delivered through, when it is. */
  consumerGroup?: string;
}

export function inHandlerSpan<R>(metadata: MessageMetadata | undefined, handler: TracedHandler, work: (span: Span | undefined) => Promise<R>): Promise<R> {
  return inSpan(
    SpanNames.handlerExecute,
    () => ({
      kind: SpanKind.CONSUMER,
      parent: metadata?.headers?.traceparent ? contextFromHeaders(metadata.headers) : otelContext.active(),
      attributes: {
        [A.messagingSystem]: PROTEAN_MESSAGING_SYSTEM,
        [A.messagingOperationType]: 'process',
        [A.handler]: handler.name,
        [A.handlerKind]: handler.kind,
        ...(handler.consumerGroup ? { [A.messagingConsumerGroup]: handler.consumerGroup } : {}),
        ...messageAttributes(metadata),
      },
    }),
    work,
  );
}
