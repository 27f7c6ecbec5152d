/**
 * One batch of a batching subscription: the messages that joined it run their units of work in
 * savepoints of one transaction per database, and the batch commits once every message in it has
 * finished. It takes in messages until it holds `size` of them or is `maxWaitMs` old; it never
 * waits for more than are already running, so a lone message commits as soon as it is done.
 */
import type { BatchClaim, BatchMembership, BatchTransaction, DatabaseProvider, ProviderTransaction } from '@protean-ts/core';

/** The batch's commit failed: nothing its messages did is kept, and each is tried again alone. */
export class BatchCommitError extends Error {
  override readonly name = 'BatchCommitError';
  constructor(messages: number, cause: unknown) {
    super(
      `the transaction shared by ${messages} message(s) did not commit (${(cause as Error)?.message ?? String(cause)}); each of them is tried again in a transaction of its own`,
      { cause },
    );
  }
}

export class TransactionBatch {
  private members = 0;
  /** Members whose work succeeded in the batch's transaction: what the commit makes final. */
  private succeeded = 0;
  private running = 0;
  private closed = false;
  private readonly transactions = new Map<string, Promise<BatchTransaction>>();
  private readonly timer: NodeJS.Timeout;
  private settleCommit!: (error?: unknown) => void;
  /** Resolves when the batch committed; rejects with a BatchCommitError when it did not. */
  readonly committed: Promise<void>;

  constructor(
    private readonly size: number,
    maxWaitMs: number,
    private readonly onCommitted: (messages: number, error?: unknown) => void,
  ) {
    this.committed = new Promise<void>((resolve, reject) => {
      this.settleCommit = (error) => (error === undefined ? resolve() : reject(new BatchCommitError(this.succeeded, error)));
    });
    // Members that failed never wait for the commit; nobody else may be listening.
    this.committed.catch(() => undefined);
    this.timer = setTimeout(() => (this.closed = true), maxWaitMs);
    this.timer.unref();
  }

  /** Whether another message may join. */
  get accepting(): boolean {
    return !this.closed && this.members < this.size;
  }

  /** A message joins; it must call `settled` once its work is done, however it ended. */
  join(): BatchMember {
    this.members += 1;
    this.running += 1;
    if (this.members >= this.size) this.closed = true;
    return new BatchMember(this);
  }

  /** A member's work ended; `ok` when it succeeded in a savepoint (a failed one rolled back its own; a skipped message wrote nothing). */
  settled(ok: boolean): void {
    this.running -= 1;
    if (ok) this.succeeded += 1;
    // Nothing more is running in it: commit now rather than wait for messages that may never come.
    if (this.running === 0) void this.commit();
  }

  /** A savepoint in the batch's transaction on `provider`, opened on first use; undefined where the database cannot batch. */
  savepointFor(provider: DatabaseProvider): Promise<ProviderTransaction> | undefined {
    if (!provider.beginBatch) return undefined;
    let batch = this.transactions.get(provider.name);
    if (!batch) {
      batch = provider.beginBatch();
      this.transactions.set(provider.name, batch);
    }
    return batch.then((tx) => tx.savepoint());
  }

  private async commit(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const opened = await Promise.allSettled(this.transactions.values());
    const transactions = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    let failure: unknown;
    for (const tx of transactions) {
      if (failure === undefined) {
        try {
          await tx.commit();
          continue;
        } catch (error) {
          failure = error;
        }
      }
      await tx.rollback().catch(() => undefined);
    }
    this.onCommitted(this.succeeded, failure);
    this.settleCommit(failure);
  }
}

/** One message's membership: what its units of work claim, and what waits for the commit. */
export class BatchMember implements BatchMembership {
  private claimed = false;
  private finished = false;
  /** Whether its work ran in the batch's transaction (a type the handler skips never does). */
  usedBatch = false;
  private readonly afterCommit: (() => Promise<void>)[] = [];

  constructor(readonly batch: TransactionBatch) {}

  claim(): BatchClaim | undefined {
    if (this.claimed || this.finished) return undefined;
    this.claimed = true;
    let released = false;
    return {
      savepointFor: (provider) => {
        const savepoint = this.batch.savepointFor(provider);
        if (savepoint) this.usedBatch = true;
        return savepoint;
      },
      afterBatchCommit: (work) => void this.afterCommit.push(work),
      release: () => {
        if (released) return;
        released = true;
        this.claimed = false;
      },
    };
  }

  /** After the batch committed (or the message failed): later units commit alone; the deferred work runs. */
  async finish(committed: boolean): Promise<void> {
    this.finished = true;
    if (committed) for (const work of this.afterCommit.splice(0)) await work();
  }
}
