/**
 * One business transaction across databases. It opens a transaction per provider lazily (on
 * first use), remembers the aggregates saved through repositories, and at commit writes the
 * events they raised to the outbox inside the same transactions, commits every provider, and
 * only then lets go of the events. Any failure rolls every provider back and drops the events.
 */
import { randomUUID } from 'node:crypto';
import type { BaseAggregate } from '../elements/base-aggregate.js';
import type { BaseEvent } from '../elements/base-event.js';
import type { MessageContext } from '../elements/element-host.js';
import { stateOf } from '../elements/element-state.js';
import { isEventSourcedAggregate } from '../elements/event-sourced-change.js';
import { TransactionStateError } from '../errors/transaction-state.error.js';
import { getLogger } from '../logging/logger.js';
import type { AggregateSchema } from '../ports/aggregate-dao.js';
import type { DatabaseProvider, ProviderTransaction } from '../ports/database-provider.js';
import type { NewOutboxRow } from '../ports/outbox-store.js';
import { claimBatch, type BatchClaim } from './batch-scope.js';
import { mergeInRaiseOrder } from './raise-order.js';

/** What a unit of work needs from the domain runtime that created it. */
export interface UnitOfWorkHost {
  readonly domainName: string;
  provider(name: string): DatabaseProvider;
  /** Outbox rows for the events one aggregate raised in this unit (in the unit's lane, when it names one); [] when the outbox is off. */
  outboxRowsFor(aggregate: BaseAggregate, schema: AggregateSchema, events: readonly BaseEvent[], lane: string | undefined): NewOutboxRow[];
}

export interface TrackedAggregate {
  aggregate: BaseAggregate;
  schema: AggregateSchema;
  /** `_version` before this unit first saved it, restored on rollback. */
  versionBefore: number;
}

type UnitState = 'active' | 'committing' | 'committed' | 'rolled back';

const log = getLogger('uow');

export class UnitOfWork {
  readonly id = randomUUID();
  /** Correlation of the message being handled (command or event), for events raised in this unit. */
  readonly context: MessageContext;
  private readonly transactions = new Map<string, ProviderTransaction>();
  private readonly opening = new Map<string, Promise<ProviderTransaction>>();
  private readonly tracked = new Map<BaseAggregate, TrackedAggregate>();
  private state: UnitState = 'active';
  /** The batch this unit takes savepoints in (a batching subscription's message), if any. */
  private readonly batch: BatchClaim | undefined = claimBatch();
  /** True once a transaction of this unit is a savepoint of a batch: its commit is final only with the batch's. */
  private inBatch = false;
  /** Run once this unit's writes are final (see whenCommitted). */
  private committedHooks: (() => void)[] | undefined;

  constructor(
    readonly host: UnitOfWorkHost,
    context: Partial<MessageContext> = {},
    /** The priority lane of every event raised in this unit; undefined: each event's own default. */
    readonly lane?: string,
  ) {
    this.context = {
      correlationId: context.correlationId ?? null,
      causationId: context.causationId ?? null,
      traceparent: context.traceparent ?? null,
      tracestate: context.tracestate ?? null,
    };
  }

  get isActive(): boolean {
    return this.state === 'active' || this.state === 'committing';
  }

  get status(): UnitState {
    return this.state;
  }

  /**
   * The batch whose commit makes this unit's commit final, when one of its transactions is a
   * savepoint of a batch (runInUnitOfWork defers after-commit work to it).
   */
  get batchClaim(): BatchClaim | undefined {
    return this.inBatch ? this.batch : undefined;
  }

  /** The open transactions by provider name, for adapters and the outbox to write in. */
  get transactionsByProvider(): ReadonlyMap<string, ProviderTransaction> {
    return this.transactions;
  }

  /** The transaction of `providerName` in this unit, begun on first use. */
  async transactionFor(providerName: string): Promise<ProviderTransaction> {
    this.assertUsable(`use database "${providerName}"`);
    const open = this.transactions.get(providerName);
    if (open) return open;
    // Concurrent callers in one unit (Promise.all) must share one transaction, not begin two.
    let pending = this.opening.get(providerName);
    if (!pending) {
      const provider = this.host.provider(providerName);
      const savepoint = this.batch?.savepointFor(provider);
      if (savepoint) this.inBatch = true;
      pending = savepoint ?? provider.begin();
      this.opening.set(providerName, pending);
    }
    try {
      const tx = await pending;
      if (!this.isActive) {
        // Rolled back while the transaction was opening (a sibling of a Promise.all failed): the
        // rollback could not see it, so end it here. A savepoint left open would hold its batch's
        // turn for good, and the batch would never commit.
        await tx.rollback().catch(() => undefined);
        this.assertUsable(`use database "${providerName}"`);
      }
      this.transactions.set(providerName, tx);
      return tx;
    } finally {
      this.opening.delete(providerName);
    }
  }

  /**
   * Runs `hook` once this unit's writes are final: right after its commit, or after its batch's
   * commit when it took a savepoint of one. Never after a rollback. For caches of what was written.
   */
  whenCommitted(hook: () => void): void {
    this.assertUsable('register an after-commit hook');
    (this.committedHooks ??= []).push(hook);
  }

  /** Remembers an aggregate saved in this unit, so its events are committed with it. */
  track(aggregate: BaseAggregate, schema: AggregateSchema): void {
    this.assertUsable(`save ${schema.name}`);
    if (!this.tracked.has(aggregate)) this.tracked.set(aggregate, { aggregate, schema, versionBefore: aggregate._version });
  }

  get trackedAggregates(): readonly TrackedAggregate[] {
    return [...this.tracked.values()];
  }

  /**
   * Appends outbox rows for the tracked aggregates' events, commits every transaction and
   * returns the committed events in raise order. On failure everything is rolled back.
   */
  async commit(): Promise<BaseEvent[]> {
    this.assertUsable('commit');
    this.state = 'committing';
    const perAggregate: BaseEvent[][] = [];
    try {
      for (const { aggregate, schema } of this.tracked.values()) {
        const events = aggregate.pendingEvents();
        if (events.length === 0) continue;
        perAggregate.push([...events]);
        const rows = this.host.outboxRowsFor(aggregate, schema, events, this.lane);
        if (rows.length === 0) continue;
        const tx = await this.transactionFor(schema.provider);
        await this.host.provider(schema.provider).outbox.append(tx, rows);
      }
      await this.commitTransactions();
    } catch (error) {
      await this.rollback();
      throw error;
    }
    this.state = 'committed';
    this.batch?.release();
    for (const { aggregate } of this.tracked.values()) aggregate.clearPendingEvents();
    this.runCommittedHooks();
    return mergeInRaiseOrder(perAggregate);
  }

  /**
   * Rolls back every transaction, restores versions and drops raised events (event-sourced
   * aggregates keep theirs: see below). Safe to call twice.
   */
  async rollback(): Promise<void> {
    if (this.state === 'committed' || this.state === 'rolled back') return;
    this.state = 'rolled back';
    for (const [providerName, tx] of this.transactions) {
      try {
        await tx.rollback();
      } catch (error) {
        log.error('rollback failed', { provider: providerName, unitOfWork: this.id, error });
      }
    }
    this.batch?.release();
    for (const { aggregate, versionBefore } of this.tracked.values()) {
      // An event-sourced aggregate's fields and version come from its events: it keeps them
      // pending, so adding it again appends them again (and conflicts if its stream moved on).
      if (isEventSourcedAggregate(aggregate)) continue;
      stateOf(aggregate).version = versionBefore;
      aggregate.clearPendingEvents();
    }
  }

  private runCommittedHooks(): void {
    const hooks = this.committedHooks;
    if (!hooks) return;
    this.committedHooks = undefined;
    const run = () => {
      for (const hook of hooks) hook();
    };
    const batch = this.batchClaim;
    if (batch) batch.afterBatchCommit(async () => run());
    else run();
  }

  private async commitTransactions(): Promise<void> {
    const committed: string[] = [];
    for (const [providerName, tx] of this.transactions) {
      try {
        await tx.commit();
        committed.push(providerName);
      } catch (error) {
        // Without two-phase commit, providers committed before this one stay committed.
        if (committed.length) log.error('commit failed after other databases committed', { provider: providerName, committed, unitOfWork: this.id, error });
        throw error;
      }
    }
  }

  private assertUsable(operation: string): void {
    if (!this.isActive) throw new TransactionStateError(`Cannot ${operation}: the unit of work is already ${this.state}; start a new one with domain.uow(...)`);
  }
}
