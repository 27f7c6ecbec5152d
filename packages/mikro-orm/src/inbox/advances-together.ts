/**
 * Inbox checkpoints advanced together at a batch's commit. Inside a batched transaction, a first
 * delivery that is very likely its key's next (the key's first position, or the position after
 * the one this process itself committed last, or after one moved earlier in the same batch) skips
 * the per-message UPDATE: the handler runs at once, and one statement that rides with the COMMIT,
 * in the same round trip as the outbox append, moves every such key, checking in the database
 * that each moved from exactly where it was expected. If one did not (another worker got there
 * first, a duplicate was published), the statement raises, PostgreSQL skips the COMMIT, the batch
 * rolls back, and the subscription runs each of its messages again alone, where the inbox
 * decides at once.
 */
import { InboxCheckpointMovedError } from '@protean-ts/core';
import { isPgError } from '../connection/pg-connection.js';
import type { DeferredFlush, SqlExecutor } from '../sql-executor.js';
import { PREPARED } from '../sql-executor.js';
import type { InboxTableNames } from './inbox-tables.js';

/** One message taken on trust as its key's next. */
export interface TrustedAdvance {
  subscription: string;
  key: string;
  sequence: number;
}

/** A run of consecutive positions of one key, first to last. */
export interface KeyRun {
  subscription: string;
  key: string;
  first: number;
  last: number;
}

/** Groups the batch's advances into one run per key; throws when a key's positions are not consecutive. */
export function runsOf(advances: readonly TrustedAdvance[]): KeyRun[] {
  const byKey = new Map<string, KeyRun>();
  const sorted = [...advances].sort((a, b) => a.sequence - b.sequence);
  for (const advance of sorted) {
    const id = `${advance.subscription}\u0000${advance.key}`;
    const run = byKey.get(id);
    if (!run) {
      byKey.set(id, { subscription: advance.subscription, key: advance.key, first: advance.sequence, last: advance.sequence });
      continue;
    }
    if (advance.sequence !== run.last + 1) {
      throw new InboxCheckpointMovedError(advance.subscription, [advance.key], `positions ${run.last} and ${advance.sequence} are not consecutive`);
    }
    run.last = advance.sequence;
  }
  // Keys in one order everywhere, so two batches never take their row locks crosswise.
  return [...byKey.values()].sort((a, b) => (a.subscription + a.key < b.subscription + b.key ? -1 : 1));
}

// Raised inside the statement when not every key moved: an integer cast of a text naming the
// failure, the one way plain SQL can raise without a function of ours in the schema. CASE makes
// sure the cast is only evaluated when the count is wrong.
const MOVED_MARKER = 'protean_inbox_checkpoint_moved';

/** The same for a batch with one trusted key: a plain UPDATE or INSERT, cheaper to plan and run. */
function advanceOneSql(t: InboxTableNames, run: KeyRun): { sql: string; params: unknown[] } {
  const moved =
    run.first === 1
      ? `INSERT INTO ${t.checkpoints} (subscription, partition_key, last_sequence) VALUES (?, ?, ?::bigint) ON CONFLICT DO NOTHING RETURNING 1`
      : `UPDATE ${t.checkpoints} SET last_sequence = ?::bigint, updated_at = now()
  WHERE subscription = ? AND partition_key = ? AND last_sequence = ?::bigint - 1 RETURNING 1`;
  return {
    sql: `WITH moved AS (
  ${moved}
)
SELECT 1 WHERE CASE WHEN EXISTS (SELECT 1 FROM moved) THEN false ELSE ('${MOVED_MARKER}: ' || (SELECT count(*) FROM moved))::integer IS NULL END`,
    params: run.first === 1 ? [run.subscription, run.key, run.last] : [run.last, run.subscription, run.key, run.first],
  };
}

/**
 * Moves every run's key from `first - 1` (no row for a first position) to `last`. Returns no rows;
 * raises (SQLSTATE 22P02, naming MOVED_MARKER) unless every key moved, so a COMMIT sent after it
 * in the same round trip is skipped.
 */
export function advanceTogetherSql(t: InboxTableNames, runs: readonly KeyRun[]): { sql: string; params: unknown[] } {
  if (runs.length === 1) return advanceOneSql(t, runs[0]!);
  return {
    sql: `WITH input AS (
  SELECT * FROM jsonb_to_recordset(?::jsonb) AS i(subscription text, key text, first bigint, last bigint)
), moved AS (
  UPDATE ${t.checkpoints} c SET last_sequence = i.last, updated_at = now()
  FROM input i
  WHERE i.first > 1 AND c.subscription = i.subscription AND c.partition_key = i.key COLLATE "C" AND c.last_sequence = i.first - 1
  RETURNING 1
), created AS (
  INSERT INTO ${t.checkpoints} (subscription, partition_key, last_sequence)
  SELECT i.subscription, i.key, i.last FROM input i WHERE i.first = 1
  ON CONFLICT DO NOTHING
  RETURNING 1
), done AS (
  SELECT (SELECT count(*) FROM moved) + (SELECT count(*) FROM created) AS n
)
SELECT 1 FROM done
WHERE CASE WHEN done.n = ?::bigint THEN false ELSE ('${MOVED_MARKER}: ' || done.n)::integer IS NULL END`,
    params: [JSON.stringify(runs), runs.length],
  };
}

/** Whether `error` is the advance statement's own refusal. */
function isMovedRefusal(error: unknown): boolean {
  return isPgError(error, '22P02') && error.message.includes(MOVED_MARKER);
}

/**
 * The flush a batch runs with its COMMIT: one statement for all its trusted advances,
 * checked in the database. `refused` hears of the keys whose trust did not hold.
 */
export function advanceTogether(tables: InboxTableNames, refused: (runs: readonly KeyRun[]) => void): DeferredFlush<TrustedAdvance> {
  const flush = async (executor: SqlExecutor, advances: readonly TrustedAdvance[]): Promise<void> => {
    const runs = runsOf(advances);
    const statement = advanceTogetherSql(tables, runs);
    try {
      await executor.execute(statement.sql, statement.params, PREPARED);
    } catch (error) {
      if (!isMovedRefusal(error)) throw error;
      refused(runs);
      throw new InboxCheckpointMovedError(
        runs[0]!.subscription,
        runs.map((run) => run.key),
        'a checkpoint of theirs was no longer just before the position handled (another worker or an earlier delivery had moved it)',
      );
    }
  };
  return Object.assign(flush, { ridesWithCommit: true as const });
}
