/**
 * Statements for operators and the processor's housekeeping: bounded cleanup batches, per-status
 * counts, listing, and putting failed or abandoned rows back in the queue.
 */
import type { OutboxListOptions } from '@protean-ts/core';
import { idArrayLiteral } from './id-list.js';
import { outboxRowColumns } from './outbox-row-columns.js';
import { SqlParams, type SqlValue } from './sql-params.js';

type Statement = { sql: string; params: SqlValue[] };

/**
 * Deletes at most `batchSize` rows of one finished status older than `before`; returns `{ n }`.
 * Published rows age from `published_at` (walked in order through `_finished_idx`), abandoned
 * rows from the time they were abandoned.
 */
export function cleanupBatchSql(table: string, status: 'published' | 'abandoned', before: Date, batchSize: number): Statement {
  const p = new SqlParams();
  const column = status === 'published' ? 'published_at' : 'updated_at';
  const sql = `WITH doomed AS (
  SELECT id FROM ${table}
  WHERE status = ${p.add(status)}::text AND ${column} < ${p.add(before.toISOString())}::timestamptz
  ORDER BY ${column}
  LIMIT ${p.add(batchSize)}::integer
  FOR UPDATE SKIP LOCKED
), gone AS (
  DELETE FROM ${table} t USING doomed d WHERE t.id = d.id RETURNING 1
)
SELECT count(*)::integer AS n FROM gone`;
  return { sql, params: p.values };
}

/**
 * Counts per status. Active statuses come from the partial index; published and abandoned from
 * `_finished_idx`, whose included `target_broker` keeps the per-broker count off the heap.
 */
export function countsSql(table: string, targetBroker?: string): Statement {
  const p = new SqlParams();
  const brokerFilter = () => (targetBroker === undefined ? '' : ` AND target_broker = ${p.add(targetBroker)}::text`);
  const finished = (status: string) => `(SELECT count(*) FROM ${table} WHERE status = '${status}'${brokerFilter()})::integer`;
  const sql = `SELECT
  count(*) FILTER (WHERE status = 'pending')::integer AS pending,
  count(*) FILTER (WHERE status = 'processing')::integer AS processing,
  count(*) FILTER (WHERE status = 'failed')::integer AS failed,
  ${finished('published')} AS published,
  ${finished('abandoned')} AS abandoned,
  ${finished('scheduled')} AS scheduled,
  (extract(epoch FROM now() - min(created_at) FILTER (WHERE status IN ('pending', 'failed'))) * 1000)::float8
    AS oldest_pending_age_ms
FROM ${table}
WHERE status IN ('pending', 'processing', 'failed')${brokerFilter()}`;
  return { sql, params: p.values };
}

/** Rows oldest first, optionally of one status. */
export function listSql(table: string, options: OutboxListOptions): Statement {
  const p = new SqlParams();
  const conditions: string[] = [];
  if (options.status !== undefined) conditions.push(`t.status = ${p.add(options.status)}::text`);
  if (options.correlationId !== undefined) conditions.push(`t.correlation_id = ${p.add(options.correlationId)}::text`);
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const sql = `SELECT ${outboxRowColumns('t')} FROM ${table} t ${where} ORDER BY t.id LIMIT ${p.add(options.limit)}::integer`;
  return { sql, params: p.values };
}

/** Rows published at or after `since`, per stream. */
export function publishedByStreamSql(table: string, since: Date): Statement {
  const p = new SqlParams();
  const sql = `SELECT t.stream_name, count(*) AS published FROM ${table} t
WHERE t.status = 'published' AND t.published_at >= ${p.add(since.toISOString())}::timestamptz
GROUP BY t.stream_name ORDER BY t.stream_name COLLATE "C"`;
  return { sql, params: p.values };
}

/** Failed or abandoned rows among `ids`, plus every abandoned row when `allAbandoned`, back to pending. */
export function retrySql(table: string, options: { ids?: readonly string[]; allAbandoned?: boolean }): Statement {
  const p = new SqlParams();
  const chosen: string[] = [];
  if (options.ids && options.ids.length > 0) {
    chosen.push(`(t.id = ANY (${p.add(idArrayLiteral(options.ids))}::bigint[]) AND t.status IN ('failed', 'abandoned'))`);
  }
  if (options.allAbandoned === true) chosen.push(`t.status = 'abandoned'`);
  const sql = `UPDATE ${table} t
SET status = 'pending', retry_count = 0, next_retry_at = NULL, locked_by = NULL, locked_until = NULL, updated_at = now()
WHERE ${chosen.length > 0 ? chosen.join(' OR ') : 'false'}
RETURNING t.id`;
  return { sql, params: p.values };
}

/**
 * Makes due `scheduled` rows of one broker `pending` (at most `limit`, earliest first, skipping
 * rows another processor is promoting), through `_scheduled_idx`; returns the count promoted and
 * the earliest due time still ahead. Both parts read one snapshot, so a row promoted here is not
 * also reported as ahead.
 */
export function promoteDueSql(table: string, targetBroker: string, limit: number, dueBy: Date | null = null): Statement {
  const p = new SqlParams();
  const broker = p.add(targetBroker);
  // greatest() skips a null: without dueBy, "now" is the database's clock. A function, called where
  // the text uses it: placeholders are positional, so each use adds its value in text order.
  const cutoff = () => `greatest(now(), ${p.add(dueBy === null ? null : dueBy.toISOString())}::timestamptz)`;
  const sql = `WITH due AS (
  SELECT id FROM ${table}
  WHERE status = 'scheduled' AND target_broker = ${broker}::text AND deliver_at <= ${cutoff()}
  ORDER BY deliver_at
  LIMIT ${p.add(limit)}::integer
  FOR UPDATE SKIP LOCKED
), promoted AS (
  UPDATE ${table} t SET status = 'pending', updated_at = now()
  FROM due WHERE t.id = due.id AND t.status = 'scheduled'
  RETURNING 1
)
SELECT (SELECT count(*) FROM promoted)::integer AS promoted,
  (extract(epoch FROM (SELECT min(deliver_at) FROM ${table}
    WHERE status = 'scheduled' AND target_broker = ${p.add(targetBroker)}::text AND deliver_at > ${cutoff()})) * 1000)::float8 AS next_due_ms`;
  return { sql, params: p.values };
}

/** Deletes the `scheduled` rows whose partition key starts with `keyPrefix`; returns `{ n }`. */
export function cancelScheduledSql(table: string, keyPrefix: string): Statement {
  const p = new SqlParams();
  const pattern = `${keyPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const sql = `WITH gone AS (
  DELETE FROM ${table} WHERE status = 'scheduled' AND partition_key LIKE ${p.add(pattern)}::text
  RETURNING 1
)
SELECT count(*)::integer AS n FROM gone`;
  return { sql, params: p.values };
}
