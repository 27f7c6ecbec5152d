/**
 * The PostgreSQL `InboxStore`: checkpoints live next to the aggregates (the `[inbox] database`)
 * and move inside the handler's transaction, so a handler's effects and the record that it ran
 * commit together; a redelivery then finds its position taken and is skipped.
 */
import type {
  InboxCheckpointRecord,
  InboxCleanup,
  InboxEntry,
  InboxPassedRecord,
  InboxStore,
  InboxSubscriptionTotal,
  InboxVerdict,
  PositionPass,
  ProviderTransaction,
} from '@protean-ts/core';
import { PREPARED, type DeferredFlush, type SqlDatabase, type SqlExecutor } from '../sql-executor.js';
import { transactionExecutor } from '../transaction-executor.js';
import { advanceSql, checkpointSql, cleanupSql, jumpSql, lookupSql, passSql, recordMessageSql, takePassedSql } from './inbox-statements.sql.js';
import { checkpointsOfKeysSql, passedOfKeysSql, subscriptionTotalsSql } from './inbox-observation.sql.js';
import { INBOX_CHECKPOINTS_TABLE, INBOX_MESSAGES_TABLE, INBOX_PASSED_TABLE, type InboxTableNames } from './inbox-tables.js';
import { advanceTogether, type TrustedAdvance } from './advances-together.js';
import { CommittedPositions } from './committed-positions.js';
import { PostgresSavepoint } from '../batch/postgres-savepoint.js';

export class PostgresInboxStore implements InboxStore {
  readonly tables: InboxTableNames;
  private readonly committedHere = new CommittedPositions();
  private readonly flushAdvances: DeferredFlush<TrustedAdvance>;

  constructor(private readonly db: SqlDatabase) {
    this.tables = {
      checkpoints: db.qualify(INBOX_CHECKPOINTS_TABLE),
      passed: db.qualify(INBOX_PASSED_TABLE),
      messages: db.qualify(INBOX_MESSAGES_TABLE),
    };
    this.flushAdvances = advanceTogether(this.tables, (runs) => runs.forEach((run) => this.committedHere.forget(run.subscription, run.key)));
  }

  async enter(tx: ProviderTransaction, entry: InboxEntry): Promise<InboxVerdict> {
    const sql = transactionExecutor(tx, this.db.providerName, 'The inbox', 'so the record commits with the handler');
    const { subscription, position } = entry;
    if (!position) {
      const recorded = await run(sql, recordMessageSql(this.tables, subscription, entry.messageId));
      return recorded.length ? { kind: 'next' } : { kind: 'duplicate', checkpoint: null };
    }
    const { key, sequence } = position;
    const savepoint = tx instanceof PostgresSavepoint ? tx : undefined;
    const remember = () => {
      sql.afterCommit(() => this.committedHere.set(subscription, key, sequence));
      // A later message of the key in the same batch may then be taken on trust.
      savepoint?.establishForBatch(advanced(subscription, key, sequence));
    };
    // Only in a batch: taken on trust in a transaction of its own, a message saved one round trip
    // but cost more CPU than it saved (bench:hop, 64 keys, 3 pairs: +7–10 % worker CPU per message).
    if (savepoint && !entry.jumpGap && !entry.redelivered && this.likelyNext(savepoint, subscription, key, sequence)) {
      // Very likely the key's next: taken on trust, the checkpoint moves (checked) with the batch's commit.
      savepoint.deferUntilCommit<TrustedAdvance>(this.flushAdvances, [{ subscription, key, sequence }], this.flushAdvances);
      remember();
      return { kind: 'next' };
    }
    const move = entry.jumpGap ? jumpSql : advanceSql;
    if ((await run(sql, move(this.tables, subscription, key, sequence))).length) {
      remember();
      return { kind: 'next' };
    }
    const [found] = await run<{ checkpoint: string | null; reason: string | null; broker_message_id: string | null }>(
      sql,
      lookupSql(this.tables, subscription, key, sequence),
    );
    const checkpoint = found?.checkpoint == null ? null : Number(found.checkpoint);
    if (checkpoint === null || checkpoint < sequence) {
      // The predecessor committed between the two statements: it is our turn after all.
      if (checkpoint === sequence - 1 && (await run(sql, advanceSql(this.tables, subscription, key, sequence))).length) {
        remember();
        return { kind: 'next' };
      }
      return { kind: 'early', checkpoint };
    }
    this.committedHere.set(subscription, key, checkpoint);
    if (!found?.reason) return { kind: 'duplicate', checkpoint };
    if (found.reason === 'dead-lettered' && found.broker_message_id === entry.brokerMessageId) return { kind: 'dead-lettered' };
    const taken = await run(sql, takePassedSql(this.tables, subscription, key, sequence));
    return taken.length ? { kind: 'late', passedAs: found.reason } : { kind: 'duplicate', checkpoint };
  }

  /** The key's first position, the one after what this process committed, or after one moved earlier in this batch. */
  private likelyNext(savepoint: PostgresSavepoint, subscription: string, key: string, sequence: number): boolean {
    return sequence === 1 || this.committedHere.get(subscription, key) === sequence - 1 || savepoint.knowsForBatch(advanced(subscription, key, sequence - 1));
  }

  async pass(subscription: string, passes: readonly PositionPass[]): Promise<boolean[]> {
    if (passes.length === 0) return [];
    const moved = new Set((await run<{ key: string }>(this.db, passSql(this.tables, subscription, passes))).map((row) => row.key));
    return passes.map((pass) => moved.has(pass.key));
  }

  async checkpoint(subscription: string, key: string): Promise<number | null> {
    const [row] = await run<{ checkpoint: string }>(this.db, checkpointSql(this.tables, subscription, key));
    return row ? Number(row.checkpoint) : null;
  }

  async forget(subscription: string): Promise<number> {
    let removed = 0;
    for (const table of [this.tables.checkpoints, this.tables.passed, this.tables.messages]) {
      removed += (await this.db.execute(`DELETE FROM ${table} WHERE subscription = ?`, [subscription])).rowCount;
    }
    return removed;
  }

  async cleanup(options: InboxCleanup): Promise<number> {
    let removed = 0;
    for (const [table, column] of [
      [this.tables.passed, 'passed_at'],
      [this.tables.messages, 'handled_at'],
    ] as const) {
      const [row] = await run<{ n: number }>(this.db, cleanupSql(table, column, options.before, options.batchSize - removed));
      removed += row?.n ?? 0;
      if (removed >= options.batchSize) break;
    }
    return removed;
  }

  async positions(keys: readonly string[]): Promise<{ checkpoints: InboxCheckpointRecord[]; passed: InboxPassedRecord[] }> {
    if (keys.length === 0) return { checkpoints: [], passed: [] };
    const checkpoints = await run<{ subscription: string; partition_key: string; last_sequence: string; updated_at: Date }>(
      this.db,
      checkpointsOfKeysSql(this.tables, keys),
    );
    const passed = await run<{ subscription: string; partition_key: string; sequence: string; reason: string; passed_at: Date }>(
      this.db,
      passedOfKeysSql(this.tables, keys),
    );
    return {
      checkpoints: checkpoints.map((row) => ({
        subscription: row.subscription,
        key: row.partition_key,
        sequence: Number(row.last_sequence),
        updatedAt: new Date(row.updated_at),
      })),
      passed: passed.map((row) => ({
        subscription: row.subscription,
        key: row.partition_key,
        sequence: Number(row.sequence),
        reason: row.reason,
        passedAt: new Date(row.passed_at),
      })),
    };
  }

  async totals(): Promise<InboxSubscriptionTotal[]> {
    const rows = await run<{ subscription: string; total: string }>(this.db, subscriptionTotalsSql(this.tables));
    return rows.map((row) => ({ subscription: row.subscription, total: Number(row.total) }));
  }
}

/** The fact a batch's savepoint establishes when it moved (or will move at the commit) a key to `sequence`. */
function advanced(subscription: string, key: string, sequence: number): string {
  return `inbox\u0000${subscription}\u0000${key}\u0000${sequence}`;
}

// Every inbox text is fixed per table (values travel as parameters), and `enter` runs once or
// more per handled message: prepared, PostgreSQL parses and plans each once per connection.
async function run<R = Record<string, unknown>>(executor: SqlExecutor, statement: { sql: string; params: unknown[] }): Promise<R[]> {
  return (await executor.execute<R>(statement.sql, statement.params, PREPARED)).rows;
}
