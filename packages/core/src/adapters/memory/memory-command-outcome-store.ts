/**
 * Command outcomes of the memory provider, with the PostgreSQL semantics: a claim stages its
 * record in the transaction and holds the idempotency key until that transaction ends, so a
 * concurrent claim of the same key waits for it (like a unique index does), then finds the
 * committed record or the key free again.
 */
import { TransactionStateError } from '../../errors/transaction-state.error.js';
import type { ProviderTransaction } from '../../ports/database-provider.js';
import type {
  ClaimResult,
  CommandClaim,
  CommandOutcome,
  CommandOutcomeCleanup,
  CommandOutcomeRecord,
  CommandOutcomeStore,
} from '../../ports/command-outcome-store.js';
import { MemoryTransaction } from './memory-transaction.js';

export class MemoryCommandOutcomeStore implements CommandOutcomeStore {
  private readonly records = new Map<string, CommandOutcomeRecord>();
  private readonly commandByKey = new Map<string, string>();
  /** Idempotency keys claimed by a transaction still open: which one, and when it ends. */
  private readonly heldKeys = new Map<string, { tx: MemoryTransaction; ended: Promise<void> }>();
  /** The records each open transaction claimed (by command id), as they will be committed. */
  private readonly staged = new WeakMap<MemoryTransaction, Map<string, CommandOutcomeRecord>>();

  constructor(
    private readonly providerName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async claim(tx: ProviderTransaction, claim: CommandClaim): Promise<ClaimResult> {
    const staging = this.own(tx);
    const key = claim.idempotencyKey;
    if (key !== null) {
      for (let held = this.heldKeys.get(key); held; held = this.heldKeys.get(key)) {
        // The same transaction claimed the key before: it sees its own record, as in SQL.
        if (held.tx === staging) return { claimed: false, existing: copy([...this.stagedOf(staging).values()].find((r) => r.idempotencyKey === key)!) };
        await held.ended;
      }
      const existing = this.committedByKey(key);
      if (existing) return { claimed: false, existing: copy(existing) };
    }
    const own = this.stagedOf(staging).get(claim.commandId) ?? this.records.get(claim.commandId);
    if (own) return { claimed: false, existing: copy(own) };
    staging.assertActive('claim a command outcome');
    if (key !== null) {
      let release!: () => void;
      this.heldKeys.set(key, { tx: staging, ended: new Promise((resolve) => (release = resolve)) });
      staging.endListeners.push(() => {
        this.heldKeys.delete(key);
        release();
      });
    }
    const record: CommandOutcomeRecord = {
      ...claim,
      status: 'pending',
      result: null,
      errorName: null,
      errorMessage: null,
      createdAt: this.now(),
      completedAt: null,
    };
    this.stagedOf(staging).set(record.commandId, record);
    staging.outcomeWrites.push(() => {
      // The record as completed in the transaction, if it was.
      const final = this.staged.get(staging)?.get(record.commandId) ?? record;
      this.records.set(final.commandId, final);
      if (key !== null) this.commandByKey.set(key, final.commandId);
    });
    return { claimed: true };
  }

  async complete(tx: ProviderTransaction | null, commandId: string, outcome: CommandOutcome): Promise<boolean> {
    if (!tx) return this.completeCommitted(commandId, outcome);
    const staging = this.own(tx);
    staging.assertActive('record a command outcome');
    const staged = this.staged.get(staging);
    const claimedHere = staged?.get(commandId);
    if (claimedHere) {
      if (!(outcome.status === 'refused' && claimedHere.status === 'succeeded')) staged!.set(commandId, completed(claimedHere, outcome, this.now()));
      return true;
    }
    staging.outcomeWrites.push(() => void this.completeCommitted(commandId, outcome));
    return this.records.has(commandId);
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

  private completeCommitted(commandId: string, outcome: CommandOutcome): boolean {
    const record = this.records.get(commandId);
    if (!record || (outcome.status === 'refused' && record.status === 'succeeded')) return false;
    this.records.set(commandId, completed(record, outcome, this.now()));
    return true;
  }

  private stagedOf(tx: MemoryTransaction): Map<string, CommandOutcomeRecord> {
    let staged = this.staged.get(tx);
    if (!staged) this.staged.set(tx, (staged = new Map()));
    return staged;
  }

  private committedByKey(key: string): CommandOutcomeRecord | undefined {
    const id = this.commandByKey.get(key);
    return id === undefined ? undefined : this.records.get(id);
  }

  private own(tx: ProviderTransaction): MemoryTransaction {
    if (!(tx instanceof MemoryTransaction) || tx.providerName !== this.providerName) {
      throw new TransactionStateError(
        `The command outcomes of memory database "${this.providerName}" were given a transaction of "${tx?.providerName ?? 'unknown'}"; use a transaction opened by this provider`,
      );
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
