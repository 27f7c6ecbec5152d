/**
 * Batched handling: a stream subscription may run several messages in one database transaction,
 * each message's unit of work inside a savepoint of its own, with one commit for all. The
 * subscription runs each message's handling inside a batch scope (this AsyncLocalStorage); the
 * message's unit of work claims it and takes savepoints instead of transactions of its own.
 * Only one unit at a time holds a claim: a unit started while another of the same message is
 * open (a fresh nested unit) commits alone, as it would without batching, so it can never wait
 * for a savepoint turn its own message holds.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseProvider, ProviderTransaction } from '../ports/database-provider.js';

/** What a unit of work holds while it runs in a batch. */
export interface BatchClaim {
  /** A savepoint of the batch's transaction on `provider`; undefined when that database cannot batch (the unit begins its own). */
  savepointFor(provider: DatabaseProvider): Promise<ProviderTransaction> | undefined;
  /** Runs `work` after the batch committed (never when it rolls back); the message's handling waits for it. */
  afterBatchCommit(work: () => Promise<void>): void;
  /** The unit has committed or rolled back its savepoints: another unit of the message may claim. */
  release(): void;
}

/** One message's place in a batch, as the subscription's batcher hands it to the unit of work. */
export interface BatchMembership {
  /** The batch for the unit starting now; undefined when another unit of this message holds it, or the batch is done. */
  claim(): BatchClaim | undefined;
}

const batchStorage = new AsyncLocalStorage<BatchMembership>();

/** Runs `work` as a member of a batch: the units of work it starts take savepoints in the batch. */
export function runInBatch<T>(membership: BatchMembership, work: () => Promise<T>): Promise<T> {
  return batchStorage.run(membership, work);
}

/** The batch a unit of work starting here claims, if any. */
export function claimBatch(): BatchClaim | undefined {
  return batchStorage.getStore()?.claim();
}
