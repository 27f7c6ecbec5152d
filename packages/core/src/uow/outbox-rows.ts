/**
 * Turns the events one aggregate raised in a unit of work into outbox rows: one per event for
 * the outbox's broker, plus one per external broker (with the stripped envelope) for events
 * registered `published: true`. Rows of one aggregate share its stream name as partition key;
 * the store numbers them (gapless, per key and broker) when it writes them.
 */
import type { BaseEvent } from '../elements/base-event.js';
import type { OutboxConfig } from '../config/config-types.js';
import type { NewOutboxRow } from '../ports/outbox-store.js';
import { serializeMessage } from '../messages/serialize-message.js';
import { stripEnvelope } from '../messages/strip-envelope.js';

export interface AggregateEvents {
  /** `<category>-<id>` of the aggregate: the partition key of its rows. */
  aggregateStream: string;
  events: readonly BaseEvent[];
}

export function outboxRowsForEvents(input: AggregateEvents, outbox: Pick<OutboxConfig, 'broker' | 'external_brokers' | 'retry'>): NewOutboxRow[] {
  const rows: NewOutboxRow[] = [];
  for (const event of input.events) {
    const envelope = serializeMessage(event);
    const { headers, domain } = envelope.metadata;
    const row: NewOutboxRow = {
      messageId: headers.id,
      streamName: domain.streamCategory,
      partitionKey: input.aggregateStream,
      messageType: headers.type,
      envelope,
      targetBroker: outbox.broker,
      maxRetries: outbox.retry.max_attempts,
      correlationId: domain.correlationId ?? null,
      causationId: domain.causationId ?? null,
    };
    rows.push(row);
    if (domain.published === true) {
      const stripped = stripEnvelope(envelope);
      for (const broker of outbox.external_brokers) {
        if (broker !== outbox.broker) rows.push({ ...row, envelope: stripped, targetBroker: broker });
      }
    }
  }
  return rows;
}
