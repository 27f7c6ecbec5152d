/**
 * Command outcomes of the memory provider, with the PostgreSQL semantics: a claim stages its
 * record in the transaction and holds the idempotency key until that transaction ends, so a
 * concurrent claim of the same key waits for it (like a unique index does), then finds the
 * committed record or the key free again.
 */
import { TransactionStateError } from '../../errors/transaction-state.error.js';
import type { ProviderTransaction } from '../../ports/database-provider.js';
import type { ClaimResult, CommandClaim, CommandOutcome, CommandOutcomeCleanup, CommandOutcomeRecord, CommandOutcomeStore } from '../../ports/command-outcome-store.js';
import { MemoryTransaction } from './memory-transaction.js';

export class MemoryCommandOutcomeStore implements CommandOutcomeStore {
  private readonly records = new Map<string, CommandOutcomeRecord>();
  private readonly commandByKey = new Map<string, string>();
  /** Idempotency keys claimed by a transaction still open, and when it ends. */
  private readonly heldKeys = new Map<string, Promise<void>>();
  /** Commands claimed by each open transaction, so a completion in the same transaction knows its record. */
  private readonly staged = new WeakMap<MemoryTransaction, Set<string>>();

  constructor(
    private readonly providerName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async claim(tx: ProviderTransaction, claim: CommandClaim): Promise<ClaimResult> {
    const staging = this.own(tx);
    const key = claim.idempotencyKey;
    if (key !== null) {
      for (let held = this.heldKeys.get(key); held; held = this.heldKeys.get(key)) await held;
      const existing = this.committedByKey(key);
      if (existing) return { claimed: false, existing: copy(existing) };
      let release!: () => void;
      this.heldKeys.set(key, new Promise((resolve) => (release = resolve)));
      staging.endListeners.push(() => {
        this.heldKeys.delete(key);
        release();
      });
    }
    staging.assertActive('claim a command outcome');
    const record: CommandOutcomeRecord = { ...claim, status: 'pending', result: null, errorName: null, errorMessage: null, createdAt: this.now(), completedAt: null };
    let claimed = this.staged.get(staging);
    if (!claimed) this.staged.set(staging, (claimed = new Set()));
    claimed.add(claim.commandId);
    staging.outcomeWrites.push(() => {
      this.records.set(record.commandId, record);
      if (key !== null) this.commandByKey.set(key, record.commandId);
    });
    return { claimed: true };
  }

  async complete(tx: ProviderTransaction | null, commandId: string, outcome: CommandOutcome): Promise<boolean> {
    const apply = (): boolean => {
      const record = this.records.get(commandId);
      if (!record || (outcome.status === 'refused' && record.status === 'succeeded')) return false;
      this.records.set(commandId, completed(record, outcome, this.now()));
      return true;
    };
    if (!tx) return apply();
    const staging = this.own(tx);
    staging.assertActive('record a command outcome');
    staging.outcomeWrites.push(() => void apply());
    // Claimed earlier (committed) or in this very transaction (staged before this write).
    return this.records.has(commandId) || this.staged.get(staging)?.has(commandId) === true;
  }

  async get(commandId: string): Promise<CommandOutcomeRecord | null> {
    const record = this.records.get(commandId);
    return record ? copy(record) : null;
  }

  async cleanup(options: CommandOutcomeCleanup): Promise<number> {
    let removed = 0;
    for (const [id, record] of this.records) {
      if (removed >= options.batchSize) break;
      if (record.createdAt >= options.before) continue;
      this.records.delete(id);
      if (record.idempotencyKey !== null) this.commandByKey.delete(record.idempotencyKey);
      removed += 1;
    }
    return removed;
  }

  private committedByKey(key: string): CommandOutcomeRecord | undefined {
    const id = this.commandByKey.get(key);
    return id === undefined ? undefined : this.records.get(id);
  }

  private own(tx: ProviderTransaction): MemoryTransaction {
    if (!(tx instanceof MemoryTransaction) || tx.providerName !== this.providerName) {
      throw new TransactionStateError(`The command outcomes of memory database "${this.providerName}" were given a transaction of "${tx?.providerName ?? 'unknown'}"; use a transaction opened by this provider`);
    }
    return tx;
  }
}

function completed(record: CommandOutcomeRecord, outcome: CommandOutcome, at: Date): CommandOutcomeRecord {
  return outcome.status === 'succeeded'
    ? { ...record, status: 'succeeded', result: outcome.result ?? null, errorName: null, errorMessage: null, completedAt: at }
    : { ...record, status: 'refused', result: null, errorName: outcome.errorName, errorMessage: outcome.errorMessage, completedAt: at };
}

/** Results are stored as JSON, as PostgreSQL does: the caller gets plain data, never a live object. */
function copy(record: CommandOutcomeRecord): CommandOutcomeRecord {
  return { ...record, result: record.result === null || record.result === undefined ? null : JSON.parse(JSON.stringify(record.result)) };
}
