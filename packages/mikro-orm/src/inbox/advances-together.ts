/**
 * Inbox checkpoints advanced together at a batch's commit. Inside a batched transaction, a first
 * delivery that is very likely its key's next (the key's first position, or the position after
 * the one this process itself committed last) skips the per-message UPDATE: the handler runs at
 * once, and one statement just before the batch's COMMIT moves every such key, checking that each
 * moved from exactly where it was expected. If one did not (another worker got there first, a
 * duplicate was published), the statement throws, the whole batch rolls back, and the
 * subscription runs each of its messages again alone, where the inbox decides at once.
 */
import type { SqlExecutor } from '../sql-executor.js';
import { PREPARED } from '../sql-executor.js';
import type { InboxTableNames } from './inbox-tables.js';

/** One message taken on trust as its key's next. */
export interface TrustedAdvance {
  subscription: string;
  key: string;
  sequence: number;
}

/** A batch's trusted advances did not all hold; its commit is refused. */
export class InboxCheckpointMovedError extends Error {
  override readonly name = 'InboxCheckpointMovedError';
  constructor(subscription: string, keys: readonly string[], why: string) {
    super(
      `the inbox of subscription "${subscription}" could not advance key(s) ${keys.map((k) => JSON.stringify(k)).join(', ')} at the batch's commit: ${why}; ` +
        'the batch rolls back and each of its messages is handled again alone (nothing is lost or handled twice)',
    );
  }
}

/** A run of consecutive positions of one key, first to last. */
interface KeyRun {
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

/** Moves every run's key from `first - 1` (no row for a first position) to `last`; returns the keys that moved. */
export function advanceTogetherSql(t: InboxTableNames, runs: readonly KeyRun[]): { sql: string; params: unknown[] } {
  return {
    sql: `WITH input AS (
  SELECT * FROM jsonb_to_recordset(?::jsonb) AS i(subscription text, key text, first bigint, last bigint)
), moved AS (
  UPDATE ${t.checkpoints} c SET last_sequence = i.last, updated_at = now()
  FROM input i
  WHERE i.first > 1 AND c.subscription = i.subscription AND c.partition_key = i.key COLLATE "C" AND c.last_sequence = i.first - 1
  RETURNING c.subscription, c.partition_key
), created AS (
  INSERT INTO ${t.checkpoints} (subscription, partition_key, last_sequence)
  SELECT i.subscription, i.key, i.last FROM input i WHERE i.first = 1
  ON CONFLICT DO NOTHING
  RETURNING subscription, partition_key
)
SELECT subscription, partition_key AS key FROM moved UNION ALL SELECT subscription, partition_key FROM created`,
    params: [JSON.stringify(runs)],
  };
}

/** The flush a batch runs before its COMMIT: one statement for all its trusted advances, checked. */
export function advanceTogether(tables: InboxTableNames): (executor: SqlExecutor, advances: readonly TrustedAdvance[]) => Promise<void> {
  return async (executor, advances) => {
    const runs = runsOf(advances);
    const statement = advanceTogetherSql(tables, runs);
    const { rows } = await executor.execute<{ subscription: string; key: string }>(statement.sql, statement.params, PREPARED);
    if (rows.length === runs.length) return;
    const moved = new Set(rows.map((row) => `${row.subscription}\u0000${row.key}`));
    const stuck = runs.filter((run) => !moved.has(`${run.subscription}\u0000${run.key}`));
    throw new InboxCheckpointMovedError(
      stuck[0]!.subscription,
      stuck.map((run) => run.key),
      'their checkpoints were no longer just before the positions handled (another worker or an earlier delivery moved them)',
    );
  };
}
