/**
 * The inbox's statements. The common path of `enter` is one UPDATE of the key's checkpoint row
 * (or one INSERT for a key's first message): it moves the checkpoint only from the predecessor's
 * sequence, and it waits on the row lock while another worker's transaction handles the
 * predecessor, so workers take turns per key through PostgreSQL alone.
 */
import type { PositionPass } from '@protean-ts/core';
import type { InboxTableNames } from './inbox-tables.js';

type Statement = { sql: string; params: unknown[] };

/** Positions recorded per jump over a gap; more are jumped over but not recorded. */
export const MAX_RECORDED_GAP = 1000;

/** Moves the checkpoint to `sequence` if it is the key's next; returns a row when it did. */
export function advanceSql(t: InboxTableNames, subscription: string, key: string, sequence: number): Statement {
  if (sequence === 1) {
    return {
      sql: `INSERT INTO ${t.checkpoints} (subscription, partition_key, last_sequence) VALUES (?, ?, 1) ON CONFLICT DO NOTHING RETURNING 1 AS moved`,
      params: [subscription, key],
    };
  }
  return {
    sql: `UPDATE ${t.checkpoints} SET last_sequence = ?::bigint, updated_at = now()
WHERE subscription = ? AND partition_key = ? AND last_sequence = ?::bigint - 1 RETURNING 1 AS moved`,
    params: [sequence, subscription, key, sequence],
  };
}

/** Why a message was not next: the checkpoint, and a passed record for its position if any. */
export function lookupSql(t: InboxTableNames, subscription: string, key: string, sequence: number): Statement {
  return {
    sql: `SELECT (SELECT last_sequence::text FROM ${t.checkpoints} WHERE subscription = ? AND partition_key = ?) AS checkpoint,
  p.reason, p.broker_message_id
FROM (SELECT 1) one LEFT JOIN ${t.passed} p ON p.subscription = ? AND p.partition_key = ? AND p.sequence = ?::bigint`,
    params: [subscription, key, subscription, key, sequence],
  };
}

/** Takes a passed position back for the late message that finally came; a row when it did. */
export function takePassedSql(t: InboxTableNames, subscription: string, key: string, sequence: number): Statement {
  return {
    sql: `DELETE FROM ${t.passed} WHERE subscription = ? AND partition_key = ? AND sequence = ?::bigint RETURNING 1 AS taken`,
    params: [subscription, key, sequence],
  };
}

/**
 * Jumps the checkpoint to `sequence` from wherever it is below it, recording the positions jumped
 * over (at most MAX_RECORDED_GAP) as passed: a message that still comes for one is then handled.
 */
export function jumpSql(t: InboxTableNames, subscription: string, key: string, sequence: number): Statement {
  return {
    sql: `WITH previous AS (
  SELECT last_sequence FROM ${t.checkpoints} WHERE subscription = ? AND partition_key = ? FOR UPDATE
), moved AS (
  INSERT INTO ${t.checkpoints} AS c (subscription, partition_key, last_sequence) VALUES (?, ?, ?::bigint)
  ON CONFLICT (subscription, partition_key) DO UPDATE SET last_sequence = excluded.last_sequence, updated_at = now()
  WHERE c.last_sequence < excluded.last_sequence
  RETURNING 1
), recorded AS (
  INSERT INTO ${t.passed} (subscription, partition_key, sequence, reason)
  SELECT ?, ?, s, 'gap timed out'
  FROM generate_series(COALESCE((SELECT last_sequence FROM previous), 0) + 1,
    LEAST(?::bigint - 1, COALESCE((SELECT last_sequence FROM previous), 0) + ${MAX_RECORDED_GAP})) AS s
  WHERE EXISTS (SELECT 1 FROM moved)
  ON CONFLICT DO NOTHING
)
SELECT 1 AS moved FROM moved`,
    params: [subscription, key, subscription, key, sequence, subscription, key, sequence],
  };
}

/** Records a message without position as handled; a row when it was not recorded before. */
export function recordMessageSql(t: InboxTableNames, subscription: string, messageId: string): Statement {
  return {
    sql: `INSERT INTO ${t.messages} (subscription, message_id) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING 1 AS recorded`,
    params: [subscription, messageId],
  };
}

/**
 * Moves several keys past a position each, in one auto-commit statement, where that position is
 * the key's next; passes with a reason are recorded, and a position passed before (a late message
 * failing again) has its record renewed. Returns the keys that moved or were renewed.
 */
export function passSql(t: InboxTableNames, subscription: string, passes: readonly PositionPass[]): Statement {
  const payload = JSON.stringify(
    passes.map((p) => ({
      key: p.key,
      sequence: p.sequence,
      reason: p.reason ?? null,
      message_id: p.messageId ?? null,
      broker_message_id: p.brokerMessageId ?? null,
    })),
  );
  return {
    sql: `WITH input AS (
  SELECT * FROM jsonb_to_recordset(?::jsonb) AS i(key text, sequence bigint, reason text, message_id text, broker_message_id text)
), moved AS (
  UPDATE ${t.checkpoints} c SET last_sequence = i.sequence, updated_at = now()
  FROM input i
  WHERE c.subscription = ? AND c.partition_key = i.key COLLATE "C" AND c.last_sequence = i.sequence - 1
  RETURNING c.partition_key
), created AS (
  INSERT INTO ${t.checkpoints} (subscription, partition_key, last_sequence)
  SELECT ?, i.key, 1 FROM input i WHERE i.sequence = 1
  ON CONFLICT DO NOTHING
  RETURNING partition_key
), repassed AS (
  -- A late message (its position passed before) that failed again: its record stays, renewed.
  UPDATE ${t.passed} p SET reason = i.reason, message_id = i.message_id, broker_message_id = i.broker_message_id, passed_at = now()
  FROM input i
  WHERE p.subscription = ? AND p.partition_key = i.key COLLATE "C" AND p.sequence = i.sequence AND i.reason IS NOT NULL
  RETURNING p.partition_key
), done AS (
  SELECT partition_key FROM moved UNION ALL SELECT partition_key FROM created
), recorded AS (
  INSERT INTO ${t.passed} (subscription, partition_key, sequence, reason, message_id, broker_message_id)
  SELECT ?, i.key, i.sequence, i.reason, i.message_id, i.broker_message_id
  FROM input i JOIN done d ON d.partition_key = i.key COLLATE "C"
  WHERE i.reason IS NOT NULL
  ON CONFLICT DO NOTHING
)
SELECT partition_key AS key FROM done UNION ALL SELECT partition_key FROM repassed`,
    params: [payload, subscription, subscription, subscription, subscription],
  };
}

export function checkpointSql(t: InboxTableNames, subscription: string, key: string): Statement {
  return { sql: `SELECT last_sequence::text AS checkpoint FROM ${t.checkpoints} WHERE subscription = ? AND partition_key = ?`, params: [subscription, key] };
}

/** Deletes up to `batchSize` old rows of one record table; returns `{ n }`. */
export function cleanupSql(table: string, timeColumn: string, before: Date, batchSize: number): Statement {
  return {
    sql: `WITH doomed AS (
  SELECT ctid FROM ${table} WHERE ${timeColumn} < ?::timestamptz ORDER BY ${timeColumn} LIMIT ?::integer FOR UPDATE SKIP LOCKED
), gone AS (
  DELETE FROM ${table} t USING doomed d WHERE t.ctid = d.ctid RETURNING 1
)
SELECT count(*)::integer AS n FROM gone`,
    params: [before.toISOString(), batchSize],
  };
}
