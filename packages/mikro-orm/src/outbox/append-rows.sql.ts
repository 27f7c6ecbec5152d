/**
 * One statement numbers and writes all rows of a commit. Each (broker, key) counter row is bumped
 * by its number of rows and stays locked until commit, so sequences are gapless and follow commit
 * order; the sequence is stamped into the envelope's `position` too. It does not NOTIFY: the
 * relays are woken after the commit (append-signal.ts says why).
 */
import type { NewOutboxRow } from '@protean-ts/core';
import type { SqlValue } from './sql-params.js';

// The text depends only on the table names: built once per table, not per commit.
const texts = new Map<string, string>();

export function appendRowsSql(table: string, positionsTable: string, rows: readonly NewOutboxRow[]): { sql: string; params: SqlValue[] } {
  // The rows travel as one jsonb document: one parameter whatever the batch size.
  const payload = JSON.stringify(
    rows.map((row) => ({
      message_id: row.messageId,
      stream_name: row.streamName,
      partition_key: row.partitionKey,
      message_type: row.messageType,
      data: row.envelope.data,
      metadata: row.envelope.metadata,
      target_broker: row.targetBroker,
      max_retries: row.maxRetries,
      priority: row.priority ?? 0,
      correlation_id: row.correlationId ?? null,
      causation_id: row.causationId ?? null,
      deliver_at: row.deliverAt ? row.deliverAt.toISOString() : null,
    })),
  );
  const cacheKey = `${table} ${positionsTable}`;
  let sql = texts.get(cacheKey);
  if (sql === undefined) {
    sql = appendText(table, positionsTable);
    texts.set(cacheKey, sql);
  }
  return { sql, params: [payload] };
}

/** One parameter: the rows as jsonb. Returns the number of rows written. */
function appendText(table: string, positionsTable: string): string {
  return `WITH r AS MATERIALIZED (
  SELECT * FROM ROWS FROM (jsonb_to_recordset(?::jsonb) AS (message_id text, stream_name text,
    partition_key text, message_type text, data jsonb, metadata jsonb, target_broker text,
    max_retries integer, priority integer, correlation_id text, causation_id text, deliver_at timestamptz))
    WITH ORDINALITY AS r(message_id, stream_name, partition_key, message_type, data, metadata,
      target_broker, max_retries, priority, correlation_id, causation_id, deliver_at, ord)
),
counts AS (
  SELECT target_broker, partition_key COLLATE "C" AS partition_key, count(*)::bigint AS n FROM r GROUP BY 1, 2
),
bumped AS (
  -- Sorted, so two commits touching the same keys lock their counters in the same order.
  INSERT INTO ${positionsTable} AS c (target_broker, partition_key, last_sequence)
  SELECT target_broker, partition_key, n FROM counts ORDER BY target_broker, partition_key
  ON CONFLICT (target_broker, partition_key) DO UPDATE SET last_sequence = c.last_sequence + excluded.last_sequence
  RETURNING c.target_broker, c.partition_key, c.last_sequence
),
numbered AS (
  SELECT r.*, b.last_sequence - k.n + row_number() OVER (PARTITION BY r.target_broker, r.partition_key ORDER BY r.ord) AS sequence
  FROM r
  JOIN counts k ON k.target_broker = r.target_broker AND k.partition_key = r.partition_key
  JOIN bumped b ON b.target_broker = r.target_broker AND b.partition_key = r.partition_key
),
inserted AS (
  INSERT INTO ${table} (message_id, stream_name, partition_key, sequence, message_type, data, metadata,
    target_broker, max_retries, priority, correlation_id, causation_id, deliver_at, status)
  SELECT n.message_id, n.stream_name, n.partition_key, n.sequence, n.message_type, n.data,
    n.metadata || jsonb_build_object('envelope', COALESCE(n.metadata->'envelope', '{}'::jsonb)
      || jsonb_build_object('position', jsonb_build_object('key', n.partition_key, 'sequence', n.sequence))),
    n.target_broker, n.max_retries, n.priority, n.correlation_id, n.causation_id, n.deliver_at,
    -- A row due later waits outside the claim's index until promoteDue finds it due.
    CASE WHEN n.deliver_at > now() THEN 'scheduled' ELSE 'pending' END
  FROM numbered n
  ORDER BY n.ord
  RETURNING 1
)
SELECT count(*)::integer AS appended FROM inserted`;
}
