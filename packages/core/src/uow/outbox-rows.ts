/**
 * Turns the events one aggregate raised in a unit of work into outbox rows: one per event for
 * the outbox's broker, plus one per external broker (with the stripped envelope) for events
 * registered `published: true`. Rows of one aggregate share its stream name as partition key;
 * the store numbers them (gapless, per key and broker) when it writes them, whatever their lane,
 * so a key's order holds across lanes (docs/flow-control.md, priority lanes).
 */
import type { BaseEvent } from '../elements/base-event.js';
import type { OutboxConfig } from '../config/config-types.js';
import { lanePriority, laneStream, LIVE_LANE } from '../messages/lanes.js';
import type { NewOutboxRow } from '../ports/outbox-store.js';
import { serializeMessage } from '../messages/serialize-message.js';
import { stripEnvelope } from '../messages/strip-envelope.js';

export interface AggregateEvents {
  /** `<category>-<id>` of the aggregate: the partition key of its rows. */
  aggregateStream: string;
  events: readonly BaseEvent[];
  /** Each event's lane, checked (default: every event `live`). */
  laneOf?: (event: BaseEvent) => string;
}

export function outboxRowsForEvents(input: AggregateEvents, outbox: Pick<OutboxConfig, 'broker' | 'external_brokers' | 'retry' | 'lanes'>): NewOutboxRow[] {
  const rows: NewOutboxRow[] = [];
  for (const event of input.events) {
    const envelope = serializeMessage(event);
    const { headers, domain } = envelope.metadata;
    const lane = input.laneOf?.(event) ?? LIVE_LANE;
    const row: NewOutboxRow = {
      messageId: headers.id,
      // Lanes off: every lane shares the live stream (the lane is still checked, so turning them on changes nothing else).
      streamName: outbox.lanes.enabled ? laneStream(domain.streamCategory, lane) : domain.streamCategory,
      priority: lanePriority(lane),
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
        // Other systems read the category's stream: lanes are this domain's own, so none there.
        if (broker !== outbox.broker) rows.push({ ...row, streamName: domain.streamCategory, envelope: stripped, targetBroker: broker });
      }
    }
  }
  return rows;
}
