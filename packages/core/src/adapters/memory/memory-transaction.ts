/**
 * A transaction of the memory provider. Writes are staged here, visible only through this
 * transaction, and applied to the shared tables in one synchronous step at commit (so no
 * other work interleaves); rollback simply forgets them. This gives the embedded provider the
 * isolation and all-or-nothing behaviour the unit of work relies on with PostgreSQL.
 */
import { TransactionStateError } from '../../errors/transaction-state.error.js';
import type { ProviderTransaction } from '../../ports/database-provider.js';
import type { SealedSnapshot } from '../../ports/event-store-records.js';
import type { NewOutboxRow } from '../../ports/outbox-store.js';
import type { StagedInboxWrite, StagedStreamAppend, StagedWrite } from './staged-writes.js';

export type { StagedPut, StagedDelete, StagedWrite } from './staged-writes.js';

type TransactionState = 'active' | 'committed' | 'rolled back';

export class MemoryTransaction implements ProviderTransaction {
  /** Table name → id → staged write, in the order first written. */
  readonly writes = new Map<string, Map<string, StagedWrite>>();
  readonly outboxRows: NewOutboxRow[] = [];
  /** Partition-key prefixes whose scheduled outbox rows are deleted at commit (after this transaction's own rows are in). */
  readonly outboxCancels: string[] = [];
  readonly inboxWrites: StagedInboxWrite[] = [];
  /** Stream name → the events this transaction appends to it, in append order. */
  readonly streamAppends = new Map<string, StagedStreamAppend>();
  /** Snapshots kept at commit; `replace`: whatever the stream has by then. */
  readonly snapshots: { snapshot: SealedSnapshot; replace: boolean }[] = [];
  /** Command outcome records, applied in order at commit. */
  readonly outcomeWrites: (() => void)[] = [];
  /** Called once when the transaction ends, committed or not (releases idempotency-key claims). */
  readonly endListeners: (() => void)[] = [];
  private state: TransactionState = 'active';

  constructor(
    readonly providerName: string,
    private readonly applyCommit: (tx: MemoryTransaction) => void,
  ) {}

  get isActive(): boolean {
    return this.state === 'active';
  }

  assertActive(operation: string): void {
    if (this.state !== 'active') {
      throw new TransactionStateError(`Cannot ${operation}: the transaction of database "${this.providerName}" is already ${this.state}`);
    }
  }

  staged(table: string): Map<string, StagedWrite> {
    let writes = this.writes.get(table);
    if (!writes) {
      writes = new Map();
      this.writes.set(table, writes);
    }
    return writes;
  }

  async commit(): Promise<void> {
    this.assertActive('commit');
    try {
      this.applyCommit(this);
      this.state = 'committed';
      this.end();
    } catch (error) {
      // A failed commit (version conflict found at commit) leaves nothing applied.
      this.discard();
      throw error;
    }
  }

  /** Idempotent: rolling back a finished transaction does nothing, so cleanup paths may always call it. */
  async rollback(): Promise<void> {
    if (this.state !== 'active') return;
    this.discard();
  }

  private discard(): void {
    this.state = 'rolled back';
    this.writes.clear();
    this.outboxRows.length = 0;
    this.outboxCancels.length = 0;
    this.inboxWrites.length = 0;
    this.streamAppends.clear();
    this.snapshots.length = 0;
    this.outcomeWrites.length = 0;
    this.end();
  }

  private end(): void {
    for (const listener of this.endListeners.splice(0)) listener();
  }
}
