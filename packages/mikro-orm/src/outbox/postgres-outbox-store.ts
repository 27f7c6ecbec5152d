/**
 * The PostgreSQL `OutboxStore`: rows live in `protean_outbox` on the aggregate's own database and
 * are written inside the unit of work's transaction. It talks to PostgreSQL only through the
 * provider's `SqlDatabase` (pool statements, LISTEN) and `SqlTransaction` (statements in the
 * unit of work), so it does not depend on how the provider drives MikroORM.
 */
import {
  DuplicateOutboxMessageError,
  validateOutboxRows,
  type ClaimRequest,
  type FailureUpdate,
  type MarkAndClaimResult,
  type NewOutboxRow,
  type OutboxCounts,
  type OutboxListOptions,
  type OutboxRow,
  type OutboxStore,
  type ProviderTransaction,
  type StreamPublished,
} from '@protean-ts/core';
import { PREPARED, type DeferredFlush, type SqlDatabase, type SqlExecutor } from '../sql-executor.js';
import { transactionExecutor } from '../transaction-executor.js';
import { appendRowsSql } from './append-rows.sql.js';
import { AppendSignal } from './append-signal.js';
import { claimBatchSql } from './claim-batch.sql.js';
import { InvalidOutboxRequestError } from './invalid-outbox-request.error.js';
import { cancelScheduledSql, cleanupBatchSql, countsSql, listSql, promoteDueSql, publishedByStreamSql, retrySql } from './maintenance.sql.js';
import { mapOutboxRow, type OutboxRecord } from './outbox-row-columns.js';
import { OUTBOX_CHANNEL, OUTBOX_POSITIONS_TABLE, OUTBOX_TABLE } from './outbox-table.js';
import { extendLocksSql, markFailedSql, markPublishedSql, releaseSql } from './settle-rows.sql.js';
import { compareKeys } from './compare-keys.js';

type ClaimRecord = OutboxRecord & { marked_count: number };

export class PostgresOutboxStore implements OutboxStore {
  /** `"schema"."protean_outbox"`. */
  readonly table: string;
  /** `"schema"."protean_outbox_positions"`: the per-key sequence counters. */
  readonly positionsTable: string;
  // Where the next claim of each broker starts its walk over partition keys: round-robin, so
  // every key with work is visited within one lap however many keys there are.
  private readonly cursors = new Map<string, string>();
  private readonly signal: AppendSignal;

  constructor(private readonly db: SqlDatabase) {
    this.table = db.qualify(OUTBOX_TABLE);
    this.positionsTable = db.qualify(OUTBOX_POSITIONS_TABLE);
    this.signal = new AppendSignal(db, this.table);
  }

  async append(tx: ProviderTransaction, rows: readonly NewOutboxRow[]): Promise<void> {
    const executor = transactionExecutor(tx, this.db.providerName, 'The outbox', 'so the rows commit with the aggregate');
    if (rows.length === 0) return;
    validateOutboxRows(rows);
    // Appended at the commit, with the COMMIT in the same round trip; in a batched transaction the
    // rows of every message go out in one append.
    if (!executor.deferUntilCommit?.(this, rows, this.appendNow)) await this.appendNow(executor, rows);
    // Registered once per transaction however many appends it makes (the same function).
    executor.afterCommit(this.signal.committed);
  }

  // One statement whose answer nothing needs: at a commit it takes the COMMIT along (ridesWithCommit).
  private readonly appendNow: DeferredFlush<NewOutboxRow> = Object.assign(
    async (executor: SqlExecutor, rows: readonly NewOutboxRow[]): Promise<void> => {
      const { sql, params } = appendRowsSql(this.table, this.positionsTable, rows);
      try {
        await executor.execute(sql, params, PREPARED);
      } catch (error) {
        throw duplicateMessage(error, rows) ?? error;
      }
    },
    { ridesWithCommit: true },
  );

  async claimBatch(request: ClaimRequest): Promise<OutboxRow[]> {
    return (await this.claim([], request)).rows;
  }

  async markPublished(workerId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { sql, params } = markPublishedSql(this.table, workerId, ids);
    return (await this.db.execute(sql, params)).rows.length;
  }

  async markPublishedAndClaim(publishedIds: readonly string[], request: ClaimRequest): Promise<MarkAndClaimResult> {
    return this.claim(publishedIds, request);
  }

  private async claim(publishedIds: readonly string[], request: ClaimRequest): Promise<MarkAndClaimResult> {
    checkClaim(request);
    const cursor = this.cursors.get(request.targetBroker) ?? '';
    const { sql, params } = claimBatchSql(this.table, request, cursor, publishedIds);
    const result = await this.db.execute<ClaimRecord>(sql, params);
    const marked = Number(result.rows[0]?.marked_count ?? 0);
    // A claim that took nothing still returns one row, carrying the count of rows marked.
    const rows = result.rows.filter((record) => record.id !== null).map(mapOutboxRow);
    this.cursors.set(request.targetBroker, nextCursor(cursor, rows, request.limit));
    // The walk follows partition keys; callers get the documented order.
    return { marked, rows: rows.sort((a, b) => b.priority - a.priority || compareIds(a.id, b.id)) };
  }

  async markFailed(workerId: string, failures: readonly FailureUpdate[]): Promise<string[]> {
    if (failures.length === 0) return [];
    failures.forEach((failure, index) => {
      if (!(failure.nextRetryAt instanceof Date) || Number.isNaN(failure.nextRetryAt.getTime())) {
        throw new InvalidOutboxRequestError('markFailed', `failures[${index}].nextRetryAt`, 'must be a valid Date');
      }
    });
    const { sql, params } = markFailedSql(this.table, workerId, failures);
    return (await this.db.execute<{ id: string | number }>(sql, params)).rows.map((row) => String(row.id));
  }

  async extendLocks(workerId: string, ids: readonly string[], lockMs: number): Promise<string[]> {
    if (ids.length === 0) return [];
    if (!Number.isFinite(lockMs) || lockMs <= 0) {
      throw new InvalidOutboxRequestError('extendLocks', 'lockMs', `must be a positive number of milliseconds, got ${String(lockMs)}`);
    }
    const { sql, params } = extendLocksSql(this.table, workerId, ids, lockMs);
    return (await this.db.execute<{ id: string | number }>(sql, params)).rows.map((row) => String(row.id));
  }

  async release(workerId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const { sql, params } = releaseSql(this.table, workerId, ids);
    return (await this.db.execute(sql, params)).rows.length;
  }

  async cleanup(options: { publishedBefore: Date; abandonedBefore: Date; batchSize: number }): Promise<{ published: number; abandoned: number }> {
    if (!Number.isSafeInteger(options.batchSize) || options.batchSize < 1) {
      throw new InvalidOutboxRequestError('cleanup', 'batchSize', `must be a positive integer, got ${String(options.batchSize)}`);
    }
    return {
      published: await this.deleteInBatches('published', options.publishedBefore, options.batchSize),
      abandoned: await this.deleteInBatches('abandoned', options.abandonedBefore, options.batchSize),
    };
  }

  async counts(targetBroker?: string): Promise<OutboxCounts> {
    const { sql, params } = countsSql(this.table, targetBroker);
    const [row] = (await this.db.execute<Record<keyof OutboxCounts | 'oldest_pending_age_ms', number | null>>(sql, params)).rows;
    const age = row?.oldest_pending_age_ms ?? null;
    return {
      pending: Number(row?.pending ?? 0),
      processing: Number(row?.processing ?? 0),
      published: Number(row?.published ?? 0),
      failed: Number(row?.failed ?? 0),
      abandoned: Number(row?.abandoned ?? 0),
      scheduled: Number(row?.scheduled ?? 0),
      oldestPendingAgeMs: age === null ? null : Math.max(0, Math.round(Number(age))),
    };
  }

  async list(options: OutboxListOptions): Promise<OutboxRow[]> {
    if (!Number.isSafeInteger(options.limit) || options.limit < 0) {
      throw new InvalidOutboxRequestError('list', 'limit', `must be a non-negative integer, got ${String(options.limit)}`);
    }
    const { sql, params } = listSql(this.table, options);
    return (await this.db.execute<OutboxRecord>(sql, params)).rows.map(mapOutboxRow);
  }

  async publishedByStream(since: Date): Promise<StreamPublished[]> {
    if (!(since instanceof Date && Number.isFinite(since.getTime()))) {
      throw new InvalidOutboxRequestError('publishedByStream', 'since', `must be a valid Date, got ${String(since)}`);
    }
    const { sql, params } = publishedByStreamSql(this.table, since);
    const rows = (await this.db.execute<{ stream_name: string; published: string }>(sql, params)).rows;
    return rows.map((row) => ({ streamName: row.stream_name, published: Number(row.published) }));
  }

  async retry(options: { ids?: readonly string[]; allAbandoned?: boolean }): Promise<number> {
    const { sql, params } = retrySql(this.table, options);
    return (await this.db.execute(sql, params)).rows.length;
  }

  async promoteDue(targetBroker: string, limit: number, options: { dueBy?: Date } = {}): Promise<{ promoted: number; nextDueAt: Date | null }> {
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new InvalidOutboxRequestError('promoteDue', 'limit', `must be a positive integer, got ${String(limit)}`);
    const { dueBy } = options;
    if (dueBy !== undefined && !(dueBy instanceof Date && Number.isFinite(dueBy.getTime()))) {
      throw new InvalidOutboxRequestError('promoteDue', 'dueBy', `must be a valid Date, got ${String(dueBy)}`);
    }
    const { sql, params } = promoteDueSql(this.table, targetBroker, limit, dueBy ?? null);
    const [row] = (await this.db.execute<{ promoted: number; next_due_ms: number | null }>(sql, params)).rows;
    const next = row?.next_due_ms ?? null;
    return { promoted: Number(row?.promoted ?? 0), nextDueAt: next === null ? null : new Date(Number(next)) };
  }

  async cancelScheduled(tx: ProviderTransaction, keyPrefix: string): Promise<number> {
    const executor = transactionExecutor(tx, this.db.providerName, 'The outbox', 'so the cancellation commits with the state change');
    if (typeof keyPrefix !== 'string' || keyPrefix === '') throw new InvalidOutboxRequestError('cancelScheduled', 'keyPrefix', 'must be a non-empty string');
    const { sql, params } = cancelScheduledSql(this.table, keyPrefix);
    const [row] = (await executor.execute<{ n: number }>(sql, params)).rows;
    return Number(row?.n ?? 0);
  }

  async onAppended(listener: () => void): Promise<() => Promise<void>> {
    // This process's commits wake the listener directly; other processes' through NOTIFY.
    const removeLocal = this.signal.addLocalListener(listener);
    // Every schema's outbox shares the channel; the payload says which table grew, and who
    // committed: this store's own commits woke the listener already.
    const unlisten = await this.db.listen(OUTBOX_CHANNEL, (payload) => {
      if (this.signal.announcesOthersRows(payload)) listener();
    });
    return async () => {
      removeLocal();
      await unlisten();
    };
  }

  private async deleteInBatches(status: 'published' | 'abandoned', before: Date, batchSize: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const { sql, params } = cleanupBatchSql(this.table, status, before, batchSize);
      const n = Number((await this.db.execute<{ n: number }>(sql, params)).rows[0]?.n ?? 0);
      deleted += n;
      if (n < batchSize) return deleted;
    }
  }
}

function checkClaim(request: ClaimRequest): void {
  if (typeof request.workerId !== 'string' || request.workerId === '') {
    throw new InvalidOutboxRequestError('claimBatch', 'workerId', 'must be a non-empty string');
  }
  if (typeof request.targetBroker !== 'string' || request.targetBroker === '') {
    throw new InvalidOutboxRequestError('claimBatch', 'targetBroker', 'must be a non-empty string');
  }
  if (!Number.isSafeInteger(request.limit) || request.limit < 1) {
    throw new InvalidOutboxRequestError('claimBatch', 'limit', `must be a positive integer, got ${String(request.limit)}`);
  }
  if (!Number.isFinite(request.lockMs) || request.lockMs <= 0) {
    throw new InvalidOutboxRequestError('claimBatch', 'lockMs', `must be a positive number of milliseconds, got ${String(request.lockMs)}`);
  }
}

/**
 * The key the next claim starts after: the last key this claim took in walk order (keys after
 * the cursor first, then the wrapped-round ones). A short claim saw every key, so it starts over.
 */
function nextCursor(cursor: string, rows: readonly OutboxRow[], limit: number): string {
  if (rows.length < limit) return '';
  let lastAfter: string | null = null;
  let lastWrapped: string | null = null;
  for (const { partitionKey } of rows) {
    if (compareKeys(partitionKey, cursor) > 0) {
      if (lastAfter === null || compareKeys(partitionKey, lastAfter) > 0) lastAfter = partitionKey;
    } else if (lastWrapped === null || compareKeys(partitionKey, lastWrapped) > 0) {
      lastWrapped = partitionKey;
    }
  }
  return lastWrapped ?? lastAfter ?? '';
}

/** The port's error for a message written twice to one broker, from PostgreSQL's unique violation. */
function duplicateMessage(error: unknown, rows: readonly NewOutboxRow[]): DuplicateOutboxMessageError | null {
  const pgError = error as { code?: string; constraint?: string; detail?: string };
  if (pgError?.code !== '23505' || pgError.constraint !== `${OUTBOX_TABLE}_message_broker_key`) return null;
  const key = /\(message_id, target_broker\)=\((.*), (.*)\)/.exec(pgError.detail ?? '');
  const [messageId, targetBroker] = key ? [key[1]!, key[2]!] : [rows[0]!.messageId, rows[0]!.targetBroker];
  return new DuplicateOutboxMessageError(messageId, targetBroker);
}

function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
