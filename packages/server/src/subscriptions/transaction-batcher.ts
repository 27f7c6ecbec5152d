/**
 * Batched handling for one subscription loop (`[server.stream_subscription] batch_size` > 1):
 * messages of different keys running at the same time share one transaction per database, a
 * savepoint each, and one commit. A message counts as handled — and is acked — only once its
 * batch committed; a message whose handler failed rolled back to its savepoint only, and its
 * retries run alone (ConsumerLoop). See docs/subscriptions.md, "Batched transactions".
 */
import type { Logger } from '@protean-ts/core';
import { runInBatch } from '@protean-ts/core';
import { TransactionBatch } from './transaction-batch.js';

export interface BatchCounters {
  batches: number;
  batchedMessages: number;
}

export class TransactionBatcher {
  private open: TransactionBatch | null = null;

  constructor(
    private readonly size: number,
    private readonly maxWaitMs: number,
    private readonly counters: BatchCounters,
    private readonly log: Logger,
  ) {}

  /** Runs one message's handling in the open batch and resolves once the batch committed. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const batch = this.open?.accepting ? this.open : this.startBatch();
    const member = batch.join();
    let result: T;
    try {
      result = await runInBatch(member, work);
    } catch (error) {
      await member.finish(false);
      batch.settled(false);
      throw error;
    }
    batch.settled(member.usedBatch);
    try {
      await batch.committed;
    } catch (error) {
      await member.finish(false);
      throw error;
    }
    await member.finish(true);
    return result;
  }

  private startBatch(): TransactionBatch {
    const batch = new TransactionBatch(this.size, this.maxWaitMs, (messages, error) => {
      if (this.open === batch) this.open = null;
      if (error !== undefined) {
        this.log.warn('a batch of messages did not commit; each is tried again alone', { messages, error });
        return;
      }
      // A batch whose messages wrote nothing (types the handler skips) committed nothing.
      if (messages === 0) return;
      this.counters.batches += 1;
      this.counters.batchedMessages += messages;
    });
    this.open = batch;
    return batch;
  }
}
