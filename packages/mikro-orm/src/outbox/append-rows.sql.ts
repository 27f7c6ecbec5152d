/**
 * One statement writes all rows of a commit and queues the NOTIFY that wakes the processors.
 * PostgreSQL delivers a NOTIFY only when its transaction commits, so a listener never hears of
 * rows it cannot see yet, and a rollback wakes nobody.
 */
import type { NewOutboxRow } from '@protean-ts/core';
import { OUTBOX_CHANNEL } from './outbox-table.js';
import { SqlParams, type SqlValue } from './sql-params.js';

export function appendRowsSql(table: string, rows: readonly NewOutboxRow[]): { sql: string; params: SqlValue[] } {
  const p = new SqlParams();
  // The rows travel as one jsonb document: one parameter whatever the batch size.
  const payload = JSON.stringify(
    rows.map((row) => ({
      message_id: row.messageId,
      stream_name: row.streamName,
      partition_key: row.partitionKey,
      sequence: row.sequence,
      message_type: row.messageType,
      data: row.envelope.data,
      metadata: row.envelope.metadata,
      target_broker: row.targetBroker,
      max_retries: row.maxRetries,
      priority: row.priority ?? 0,
      correlation_id: row.correlationId ?? null,
      causation_id: row.causationId ?? null,
    })),
  );
  const sql = `WITH inserted AS (
  INSERT INTO ${table} (message_id, stream_name, partition_key, sequence, message_type, data, metadata,
    target_broker, max_retries, priority, correlation_id, causation_id)
  SELECT r.message_id, r.stream_name, r.partition_key, r.sequence, r.message_type, r.data, r.metadata,
    r.target_broker, r.max_retries, r.priority, r.correlation_id, r.causation_id
  FROM ROWS FROM (jsonb_to_recordset(${p.add(payload)}::jsonb) AS (message_id text, stream_name text,
    partition_key text, sequence bigint, message_type text, data jsonb, metadata jsonb, target_broker text,
    max_retries integer, priority integer, correlation_id text, causation_id text))
    WITH ORDINALITY AS r(message_id, stream_name, partition_key, sequence, message_type, data, metadata,
      target_broker, max_retries, priority, correlation_id, causation_id, ord)
  ORDER BY r.ord
  RETURNING 1
)
SELECT pg_notify(${p.add(OUTBOX_CHANNEL)}, ${p.add(table)}) WHERE EXISTS (SELECT 1 FROM inserted)`;
  return { sql, params: p.values };
}
