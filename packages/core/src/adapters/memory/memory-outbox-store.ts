/**
 * The outbox table of the memory provider, honouring the whole `OutboxStore` port the way the
 * PostgreSQL store does: rows become visible only when their transaction commits, claims keep
 * per-partition order, expired locks can be taken over, and every change to a claimed row is
 * guarded by `lockedBy`. Process-local by nature: it is the embedded default, not a shared queue.
 */
import { getLogger } from '../../logging/logger.js';
import { DuplicateOutboxMessageError } from '../../errors/duplicate-outbox-message.error.js';
import { TransactionStateError } from '../../errors/transaction-state.error.js';
import type { ProviderTransaction } from '../../ports/database-provider.js';
import type {
  ClaimRequest,
  FailureUpdate,
  MarkAndClaimResult,
  NewOutboxRow,
  OutboxCounts,
  OutboxListOptions,
  OutboxRow,
  OutboxStatus,
  OutboxStore,
  StreamPublished,
} from '../../ports/outbox-store.js';
import { MemoryTransaction } from './memory-transaction.js';
import { OutboxPartitions } from './memory-outbox-partitions.js';
import { validateOutboxRows } from './outbox-row-checks.js';
import { withPosition } from '../../messages/with-position.js';

/** A row plus the time of its last status change (abandoned rows are cleaned up by it). */
interface StoredRow extends OutboxRow {
  updatedAt: Date;
}

// Rows in these states hold back later rows of the same partition key.
const UNFINISHED: ReadonlySet<OutboxStatus> = new Set(['pending', 'processing', 'failed']);

const log = getLogger('outbox.memory');

export class MemoryOutboxStore implements OutboxStore {
  // Insertion order is id order, which list relies on.
  private readonly rows = new Map<string, StoredRow>();
  // Rows still to publish (pending, processing, failed), indexed for claims, so published rows
  // kept for the retention period cost nothing per tick.
  private readonly partitions = new OutboxPartitions<StoredRow>();
  /** `uniqueKey` of every stored row, for the (message, broker) uniqueness check. */
  private readonly messageKeys = new Set<string>();
  private nextId = 1;
  /** Last sequence given per `<broker> <key>`: positions are never reused, like the SQL counter table. */
  private readonly lastSequences = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  /** Rows waiting for their due time. */
  private readonly scheduled = new Set<StoredRow>();

  constructor(
    private readonly providerName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async append(tx: ProviderTransaction, rows: readonly NewOutboxRow[]): Promise<void> {
    if (!(tx instanceof MemoryTransaction) || tx.providerName !== this.providerName) {
      throw new TransactionStateError(
        `The outbox of memory database "${this.providerName}" was given a transaction of "${tx?.providerName ?? 'unknown'}"; append in a transaction opened by this provider`,
      );
    }
    tx.assertActive('append outbox rows');
    validateOutboxRows(rows);
    this.checkUnique(tx, rows);
    tx.outboxRows.push(...rows.map((row) => structuredClone(row)));
  }

  /** Called by the provider when a transaction commits: its rows become visible and listeners hear of it. */
  insertCommitted(rows: readonly NewOutboxRow[]): void {
    if (rows.length === 0) return;
    const createdAt = new Date(this.now());
    for (const row of rows) {
      const id = String(this.nextId++);
      const sequence = this.nextSequence(row);
      const deliverAt = row.deliverAt ? new Date(row.deliverAt) : null;
      const scheduled = deliverAt !== null && deliverAt.getTime() > createdAt.getTime();
      const stored: StoredRow = {
        ...row,
        envelope: withPosition(row.envelope, { key: row.partitionKey, sequence }),
        sequence,
        id,
        deliverAt,
        status: scheduled ? 'scheduled' : 'pending',
        retryCount: 0,
        nextRetryAt: null,
        lastError: null,
        lockedBy: null,
        lockedUntil: null,
        createdAt,
        publishedAt: null,
        priority: row.priority ?? 0,
        correlationId: row.correlationId ?? null,
        causationId: row.causationId ?? null,
        updatedAt: createdAt,
      };
      this.rows.set(id, stored);
      // A scheduled row is not claimable yet: it joins the claim index when promoteDue finds it due.
      if (scheduled) this.scheduled.add(stored);
      else this.partitions.add(stored);
      this.messageKeys.add(uniqueKey(stored));
    }
    // Like NOTIFY, listeners run after the commit returns, never inside it.
    setImmediate(() => this.notify());
  }

  private nextSequence(row: NewOutboxRow): number {
    const counter = `${row.targetBroker} ${row.partitionKey}`;
    const sequence = (this.lastSequences.get(counter) ?? 0) + 1;
    this.lastSequences.set(counter, sequence);
    return sequence;
  }

  async promoteDue(targetBroker: string, limit: number, options: { dueBy?: Date } = {}): Promise<{ promoted: number; nextDueAt: Date | null }> {
    const now = Math.max(this.now(), options.dueBy?.getTime() ?? 0);
    let promoted = 0;
    let nextDue: number | null = null;
    for (const row of [...this.scheduled].sort((a, b) => a.deliverAt!.getTime() - b.deliverAt!.getTime())) {
      if (row.targetBroker !== targetBroker) continue;
      const due = row.deliverAt!.getTime();
      if (due > now || promoted >= limit) {
        if (nextDue === null || due < nextDue) nextDue = due;
        continue;
      }
      this.scheduled.delete(row);
      row.status = 'pending';
      row.updatedAt = new Date(now);
      this.partitions.add(row);
      promoted += 1;
    }
    return { promoted, nextDueAt: nextDue === null ? null : new Date(nextDue) };
  }

  async cancelScheduled(tx: ProviderTransaction, keyPrefix: string): Promise<number> {
    if (!(tx instanceof MemoryTransaction) || tx.providerName !== this.providerName) {
      throw new TransactionStateError(
        `The outbox of memory database "${this.providerName}" was given a transaction of "${tx?.providerName ?? 'unknown'}"; cancel in a transaction opened by this provider`,
      );
    }
    tx.assertActive('cancel scheduled outbox rows');
    tx.outboxCancels.push(keyPrefix);
    return [...this.scheduled].filter((row) => row.partitionKey.startsWith(keyPrefix)).length;
  }

  /** Called by the provider when a transaction that cancelled scheduled rows commits. */
  cancelCommitted(keyPrefixes: readonly string[]): void {
    for (const prefix of keyPrefixes) {
      for (const row of [...this.scheduled]) {
        if (!row.partitionKey.startsWith(prefix)) continue;
        this.scheduled.delete(row);
        this.rows.delete(row.id);
        this.messageKeys.delete(uniqueKey(row));
      }
    }
  }

  async claimBatch(request: ClaimRequest): Promise<OutboxRow[]> {
    const now = this.now();
    const claimable = this.partitions.takeDueHeads(request.targetBroker, request.limit, (row) => isDue(row, now));
    const lockedUntil = new Date(now + request.lockMs);
    for (const row of claimable) {
      row.status = 'processing';
      row.lockedBy = request.workerId;
      row.lockedUntil = lockedUntil;
      row.updatedAt = new Date(now);
    }
    return claimable.map(copy);
  }

  async markPublished(workerId: string, ids: readonly string[]): Promise<number> {
    const now = new Date(this.now());
    return this.updateHeld(workerId, ids, (row) => {
      row.status = 'published';
      row.publishedAt = now;
    });
  }

  async markPublishedAndClaim(publishedIds: readonly string[], request: ClaimRequest): Promise<MarkAndClaimResult> {
    // Nothing runs in between in this process: the two steps are atomic for every other caller.
    const marked = await this.markPublished(request.workerId, publishedIds);
    return { marked, rows: await this.claimBatch(request) };
  }

  async markFailed(workerId: string, failures: readonly FailureUpdate[]): Promise<string[]> {
    const changed: string[] = [];
    for (const failure of failures) {
      const updated = this.updateHeld(workerId, [failure.id], (row) => {
        row.retryCount += 1;
        row.lastError = failure.error;
        row.status = failure.abandon ? 'abandoned' : 'failed';
        row.nextRetryAt = failure.abandon ? null : new Date(failure.nextRetryAt);
      });
      if (updated > 0) changed.push(String(failure.id));
    }
    return changed;
  }

  async extendLocks(workerId: string, ids: readonly string[], lockMs: number): Promise<string[]> {
    const until = this.now() + lockMs;
    const extended: string[] = [];
    for (const id of new Set(ids)) {
      const row = this.rows.get(String(id));
      if (!row || row.status !== 'processing' || row.lockedBy !== workerId) continue;
      // Never shortens a lock: only pushes it further.
      if (row.lockedUntil === null || row.lockedUntil.getTime() < until) row.lockedUntil = new Date(until);
      extended.push(row.id);
    }
    return extended;
  }

  async release(workerId: string, ids: readonly string[]): Promise<number> {
    return this.updateHeld(workerId, ids, (row) => {
      row.status = 'pending';
    });
  }

  async cleanup(options: { publishedBefore: Date; abandonedBefore: Date; batchSize: number }): Promise<{ published: number; abandoned: number }> {
    const batchSize = Math.max(1, options.batchSize);
    const published = this.deleteInBatches(
      batchSize,
      (row) => row.status === 'published' && row.publishedAt !== null && row.publishedAt < options.publishedBefore,
    );
    const abandoned = this.deleteInBatches(batchSize, (row) => row.status === 'abandoned' && row.updatedAt < options.abandonedBefore);
    return { published, abandoned };
  }

  async counts(targetBroker?: string): Promise<OutboxCounts> {
    const counts: OutboxCounts = { pending: 0, processing: 0, published: 0, failed: 0, abandoned: 0, scheduled: 0, oldestPendingAgeMs: null };
    let oldest: number | null = null;
    for (const row of this.rows.values()) {
      if (targetBroker !== undefined && row.targetBroker !== targetBroker) continue;
      counts[row.status] += 1;
      if ((row.status === 'pending' || row.status === 'failed') && (oldest === null || row.createdAt.getTime() < oldest)) {
        oldest = row.createdAt.getTime();
      }
    }
    counts.oldestPendingAgeMs = oldest === null ? null : Math.max(0, this.now() - oldest);
    return counts;
  }

  async list(options: OutboxListOptions): Promise<OutboxRow[]> {
    const out: OutboxRow[] = [];
    for (const row of this.rows.values()) {
      if (out.length >= options.limit) break;
      if (options.status !== undefined && row.status !== options.status) continue;
      if (options.correlationId !== undefined && row.correlationId !== options.correlationId) continue;
      out.push(copy(row));
    }
    return out;
  }

  async publishedByStream(since: Date): Promise<StreamPublished[]> {
    const counts = new Map<string, number>();
    for (const row of this.rows.values()) {
      if (row.status !== 'published' || !row.publishedAt || row.publishedAt.getTime() < since.getTime()) continue;
      counts.set(row.streamName, (counts.get(row.streamName) ?? 0) + 1);
    }
    return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([streamName, published]) => ({ streamName, published }));
  }

  async retry(options: { ids?: readonly string[]; allAbandoned?: boolean }): Promise<number> {
    const wanted = new Set(options.ids ?? []);
    const now = new Date(this.now());
    let changed = 0;
    for (const row of this.rows.values()) {
      const retryable = row.status === 'abandoned' || row.status === 'failed';
      const chosen = wanted.has(row.id) || (options.allAbandoned === true && row.status === 'abandoned');
      if (!retryable || !chosen) continue;
      row.status = 'pending';
      row.retryCount = 0;
      row.nextRetryAt = null;
      row.lockedBy = null;
      row.lockedUntil = null;
      row.updatedAt = now;
      // A failed row is still indexed; an abandoned one comes back.
      this.partitions.remove(row);
      this.partitions.add(row);
      changed += 1;
    }
    return changed;
  }

  async onAppended(listener: () => void): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    return async () => {
      this.listeners.delete(listener);
    };
  }

  // Like the PostgreSQL table's UNIQUE (message_id, target_broker): a message is relayed once per broker.
  private checkUnique(tx: MemoryTransaction, rows: readonly NewOutboxRow[]): void {
    const taken = new Set(tx.outboxRows.map(uniqueKey));
    for (const row of rows) {
      const key = uniqueKey(row);
      if (taken.has(key) || this.messageKeys.has(key)) {
        throw new DuplicateOutboxMessageError(row.messageId, row.targetBroker);
      }
      taken.add(key);
    }
  }

  /** Forgets every row (used by `truncate` and tests). */
  clear(): void {
    this.rows.clear();
    this.partitions.clear();
    this.scheduled.clear();
    this.messageKeys.clear();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        log.error('outbox append listener failed', { provider: this.providerName, error });
      }
    }
  }

  private updateHeld(workerId: string, ids: readonly string[], change: (row: StoredRow) => void): number {
    const now = new Date(this.now());
    let changed = 0;
    for (const id of new Set(ids)) {
      const row = this.rows.get(String(id));
      if (!row || row.status !== 'processing' || row.lockedBy !== workerId) continue;
      change(row);
      row.lockedBy = null;
      row.lockedUntil = null;
      row.updatedAt = now;
      if (!UNFINISHED.has(row.status)) this.partitions.remove(row);
      changed += 1;
    }
    return changed;
  }

  private deleteInBatches(batchSize: number, matches: (row: StoredRow) => boolean): number {
    let deleted = 0;
    for (;;) {
      const batch: string[] = [];
      for (const row of this.rows.values()) {
        if (batch.length >= batchSize) break;
        if (matches(row)) batch.push(row.id);
      }
      for (const id of batch) {
        this.messageKeys.delete(uniqueKey(this.rows.get(id)!));
        this.rows.delete(id);
      }
      deleted += batch.length;
      if (batch.length < batchSize) return deleted;
    }
  }
}

// Same rule as the PostgreSQL store: pending at once, failed when its retry time has come,
// processing when its lock has expired.
function isDue(row: StoredRow, now: number): boolean {
  if (row.status === 'pending') return true;
  if (row.status === 'failed') return row.nextRetryAt !== null && row.nextRetryAt.getTime() <= now;
  return row.status === 'processing' && row.lockedUntil !== null && row.lockedUntil.getTime() < now;
}

function uniqueKey(row: Pick<NewOutboxRow, 'messageId' | 'targetBroker'>): string {
  return `${row.targetBroker}\u0000${row.messageId}`;
}

function copy(row: StoredRow): OutboxRow {
  const { updatedAt: _updatedAt, ...rest } = structuredClone(row);
  return rest;
}
