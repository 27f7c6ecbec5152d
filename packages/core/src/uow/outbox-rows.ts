/**
 * Turns the events one aggregate raised in a unit of work into outbox rows: one per event for
 * the outbox's broker, plus one per external broker (with the stripped envelope) for events
 * registered `published: true`. Rows of one aggregate share its stream name as partition key
 * and carry a sequence that keeps growing across commits.
 */
import type { BaseEvent } from '../elements/base-event.js';
import type { OutboxConfig } from '../config/config-types.js';
import type { NewOutboxRow } from '../ports/outbox-store.js';
import { serializeMessage } from '../messages/serialize-message.js';
import { stripEnvelope } from '../messages/strip-envelope.js';

/**
 * Room for events per commit in the sequence: `version * SPAN + index`. Every commit that
 * carries events saves the aggregate, so its version (and with it the sequence) only grows.
 */
export const SEQUENCE_SPAN = 1_000_000;

export interface AggregateEvents {
  /** `<category>-<id>` of the aggregate: the partition key of its rows. */
  aggregateStream: string;
  /** The aggregate's version as saved in this unit of work. */
  version: number;
  events: readonly BaseEvent[];
}

export function outboxRowsForEvents(input: AggregateEvents, outbox: Pick<OutboxConfig, 'broker' | 'external_brokers' | 'retry'>): NewOutboxRow[] {
  if (input.events.length >= SEQUENCE_SPAN) {
    throw new RangeError(`${input.aggregateStream} raised ${input.events.length} events in one unit of work; at most ${SEQUENCE_SPAN - 1} are supported`);
  }
  const base = Math.max(0, input.version) * SEQUENCE_SPAN;
  const rows: NewOutboxRow[] = [];
  input.events.forEach((event, index) => {
    const envelope = serializeMessage(event);
    const { headers, domain } = envelope.metadata;
    const row: NewOutboxRow = {
      messageId: headers.id,
      streamName: domain.streamCategory,
      partitionKey: input.aggregateStream,
      sequence: base + index,
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
  });
  return rows;
}
