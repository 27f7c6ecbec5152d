/**
 * Span attributes describing one message, shared by the command, handler and broker spans so a
 * message looks the same wherever it shows up in a trace.
 */
import type { Attributes } from '@opentelemetry/api';
import type { MessageMetadata } from '../messages/envelope.js';
import { PROTEAN_MESSAGING_SYSTEM, SpanAttributes as A } from './span-names.js';

/** `messaging.*` attributes of a message: id, destination (its stream), conversation (correlation). */
export function messageAttributes(metadata: MessageMetadata | undefined): Attributes {
  if (!metadata) return {};
  const attributes: Attributes = {
    [A.messagingMessageId]: metadata.headers.id,
    [A.messagingDestinationName]: metadata.headers.stream,
    [A.messageType]: metadata.headers.type,
  };
  if (metadata.domain.correlationId) attributes[A.messagingConversationId] = metadata.domain.correlationId;
  return attributes;
}

export function commandSpanAttributes(domain: string, command: { _metadata?: MessageMetadata }, asynchronous: boolean): Attributes {
  return {
    [A.messagingSystem]: PROTEAN_MESSAGING_SYSTEM,
    [A.messagingOperationType]: asynchronous ? 'send' : 'process',
    [A.domain]: domain,
    [A.command]: command._metadata?.headers.type ?? command.constructor.name,
    [A.processing]: asynchronous ? 'async' : 'sync',
    ...messageAttributes(command._metadata),
  };
}
