/**
 * How an event-sourced aggregate's events sit in the event store: its stream is
 * `<domain>::<category>-<id>` (the aggregate's stream category, whose `<domain>::` prefix names
 * the domain part), each record keeps the event's envelope data and metadata (checksum included),
 * and a stored record becomes the registered event again through the normal deserializer.
 */
import type { BaseEvent } from '../elements/base-event.js';
import type { MessageEnvelope, MessageMetadata } from '../messages/envelope.js';
import { serializeMessage } from '../messages/serialize-message.js';
import type { NewEvent, StoredEvent } from '../ports/event-store-records.js';
import { streamName } from '../ports/stream-names.js';

/** `shop::order` + `42` → `shop::order-42`, checked by the stream-name rules. */
export function aggregateStreamName(streamCategory: string, id: string): string {
  const separator = streamCategory.indexOf('::');
  return streamName(streamCategory.slice(0, separator), streamCategory.slice(separator + 2), id);
}

export function storeRecordOf(event: BaseEvent): NewEvent {
  const envelope = serializeMessage(event);
  return {
    messageId: envelope.metadata.headers.id,
    type: envelope.metadata.headers.type,
    data: envelope.data,
    metadata: envelope.metadata as unknown as Record<string, unknown>,
  };
}

/** The envelope a stored record was written from (its checksum is checked when deserialized). */
export function envelopeOf(record: StoredEvent): MessageEnvelope {
  return { data: record.data, metadata: record.metadata as unknown as MessageMetadata };
}
