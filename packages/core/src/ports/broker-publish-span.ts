/**
 * The `protean.broker.publish` span of one publish call (one message, or one batch): a producer
 * span named after the broker's provider, with the message's attributes when there is one and
 * the destination when every message of the batch goes to the same stream.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import type { OutgoingMessage } from './broker.js';
import { messageAttributes } from '../tracing/message-span-attributes.js';
import { SpanAttributes as A } from '../tracing/span-names.js';
import type { SpanSpec } from '../tracing/in-span.js';

export function brokerPublishSpan(broker: { name: string; provider: string }, messages: readonly OutgoingMessage[]): SpanSpec {
  const attributes: Attributes = {
    [A.messagingSystem]: broker.provider,
    [A.messagingOperationType]: 'send',
    [A.broker]: broker.name,
  };
  if (messages.length === 1) Object.assign(attributes, messageAttributes(messages[0]!.envelope.metadata));
  else attributes[A.messagingBatchCount] = messages.length;
  const streams = new Set(messages.map((message) => message.stream));
  // The broker stream, which may differ from the message's own stream (a category stream).
  if (streams.size === 1) attributes[A.messagingDestinationName] = messages[0]!.stream;
  return { kind: SpanKind.PRODUCER, attributes };
}
