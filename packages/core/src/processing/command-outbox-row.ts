/**
 * The outbox row of a command processed asynchronously: published to `<category>:command`,
 * partitioned by the command's stream so commands to one aggregate stay in order.
 */
import type { OutboxConfig } from '../config/config-types.js';
import { lanePriority, laneStream, LIVE_LANE } from '../messages/lanes.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import type { NewOutboxRow } from '../ports/outbox-store.js';

export function commandOutboxRow(envelope: MessageEnvelope, outbox: Pick<OutboxConfig, 'broker' | 'retry' | 'lanes'>, lane: string = LIVE_LANE): NewOutboxRow {
  const { headers, domain } = envelope.metadata;
  const stream = `${domain.streamCategory}:command`;
  return {
    messageId: headers.id,
    streamName: outbox.lanes.enabled ? laneStream(stream, lane) : stream,
    priority: lanePriority(lane),
    partitionKey: headers.stream,
    messageType: headers.type,
    envelope,
    targetBroker: outbox.broker,
    maxRetries: outbox.retry.max_attempts,
    correlationId: domain.correlationId ?? null,
    causationId: domain.causationId ?? null,
  };
}

/**
 * The partition key of a row with a due time: its own (`<key>/at/<message id>`), so it never sits
 * in the sequence of its aggregate's commands, whose later rows would wait for it.
 */
export function deferredPartitionKey(row: Pick<NewOutboxRow, 'partitionKey' | 'messageId'>): string {
  return `${row.partitionKey}/at/${row.messageId}`;
}
