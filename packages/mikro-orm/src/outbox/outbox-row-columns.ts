/**
 * The column list every statement returning rows uses, and the mapping to the port's `OutboxRow`.
 * Times come back as epoch milliseconds and ids as text, so the result does not depend on the
 * type parsers of whichever driver runs the statement.
 */
import type { OutboxRow, OutboxStatus } from '@protean-ts/core';

const ms = (alias: string, column: string): string => `(extract(epoch FROM ${alias}.${column}) * 1000)::float8 AS ${column}_ms`;

/** `SELECT` list of a full row of `alias`. */
export function outboxRowColumns(alias: string): string {
  return [
    `${alias}.id::text AS id`,
    `${alias}.message_id`,
    `${alias}.stream_name`,
    `${alias}.partition_key`,
    `${alias}.sequence::text AS sequence`,
    `${alias}.message_type`,
    `${alias}.data`,
    `${alias}.metadata`,
    `${alias}.target_broker`,
    `${alias}.status`,
    `${alias}.retry_count`,
    `${alias}.max_retries`,
    ms(alias, 'next_retry_at'),
    `${alias}.last_error`,
    `${alias}.locked_by`,
    ms(alias, 'locked_until'),
    ms(alias, 'created_at'),
    ms(alias, 'published_at'),
    `${alias}.priority`,
    `${alias}.correlation_id`,
    `${alias}.causation_id`,
    ms(alias, 'deliver_at'),
  ].join(', ');
}

export interface OutboxRecord {
  id: string;
  message_id: string;
  stream_name: string;
  partition_key: string;
  sequence: string | number;
  message_type: string;
  data: unknown;
  metadata: unknown;
  target_broker: string;
  status: OutboxStatus;
  retry_count: number;
  max_retries: number;
  next_retry_at_ms: number | null;
  last_error: string | null;
  locked_by: string | null;
  locked_until_ms: number | null;
  created_at_ms: number;
  published_at_ms: number | null;
  priority: number;
  correlation_id: string | null;
  causation_id: string | null;
  deliver_at_ms?: number | null;
}

export function mapOutboxRow(record: OutboxRecord): OutboxRow {
  return {
    id: String(record.id),
    messageId: record.message_id,
    streamName: record.stream_name,
    partitionKey: record.partition_key,
    sequence: Number(record.sequence),
    messageType: record.message_type,
    envelope: { data: json(record.data), metadata: json(record.metadata) } as OutboxRow['envelope'],
    targetBroker: record.target_broker,
    status: record.status,
    retryCount: Number(record.retry_count),
    maxRetries: Number(record.max_retries),
    nextRetryAt: date(record.next_retry_at_ms),
    lastError: record.last_error,
    lockedBy: record.locked_by,
    lockedUntil: date(record.locked_until_ms),
    createdAt: new Date(Number(record.created_at_ms)),
    publishedAt: date(record.published_at_ms),
    priority: Number(record.priority),
    correlationId: record.correlation_id,
    causationId: record.causation_id,
    deliverAt: date(record.deliver_at_ms ?? null),
  };
}

function date(value: number | string | null): Date | null {
  return value === null || value === undefined ? null : new Date(Number(value));
}

// jsonb arrives parsed from node-postgres; a driver that hands back text gets parsed here.
function json(value: unknown): never {
  return (typeof value === 'string' ? JSON.parse(value) : value) as never;
}
