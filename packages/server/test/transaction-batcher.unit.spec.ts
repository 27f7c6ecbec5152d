/**
 * The batcher's rules, with a recording database in place of PostgreSQL (the real one is in
 * batched-transactions.int.spec.ts): who joins which batch, when a batch commits, what a failed
 * member or a failed commit means for the others, and that deferred after-commit work waits for
 * the commit.
 */
import { describe, expect, it } from 'vitest';
import { claimBatch, getLogger, type BatchTransaction, type DatabaseProvider, type ProviderTransaction } from '@protean-ts/core';
import { BatchCommitError } from '../src/subscriptions/transaction-batch.js';
import { TransactionBatcher, type BatchCounters } from '../src/subscriptions/transaction-batcher.js';

/** A provider whose batches record savepoints and commits; `failCommit` makes the next commit throw. */
function recordingProvider() {
  const log: string[] = [];
  let batches = 0;
  const state = { failCommit: false };
  const provider = {
    name: 'default',
    beginBatch: async (): Promise<BatchTransaction> => {
      const id = ++batches;
      let savepoints = 0;
      return {
        providerName: 'default',
        savepoint: async (): Promise<ProviderTransaction> => {
          const sp = ++savepoints;
          log.push(`b${id} savepoint ${sp}`);
          return {
            providerName: 'default',
            commit: async () => void log.push(`b${id} release ${sp}`),
            rollback: async () => void log.push(`b${id} rollback ${sp}`),
          };
        },
        commit: async () => {
          if (state.failCommit) {
            state.failCommit = false;
            throw new Error('connection lost');
          }
          log.push(`b${id} commit`);
        },
        rollback: async () => void log.push(`b${id} rollback`),
      };
    },
  } as unknown as DatabaseProvider;
  return { provider, log, state };
}

/** What a unit of work does with the batch: claim it, take a savepoint, run, release. */
async function unit(provider: DatabaseProvider, work: () => Promise<unknown> = async () => {}, fail = false): Promise<void> {
  const claim = claimBatch();
  const tx = await claim!.savepointFor(provider)!;
  await work();
  if (fail) {
    await tx.rollback();
    claim!.release();
    throw new Error('handler failed');
  }
  await tx.commit();
  claim!.release();
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

function batcher(size: number, maxWaitMs = 1000) {
  const counters: BatchCounters = { batches: 0, batchedMessages: 0 };
  return { batcher: new TransactionBatcher(size, maxWaitMs, counters, getLogger('test')), counters };
}

describe('TransactionBatcher', () => {
  it('commits a lone message as soon as it is done, without waiting for the batch to fill', async () => {
    const { provider, log } = recordingProvider();
    const { batcher: b, counters } = batcher(16, 60_000);
    await b.run(() => unit(provider));
    expect(log).toEqual(['b1 savepoint 1', 'b1 release 1', 'b1 commit']);
    expect(counters).toEqual({ batches: 1, batchedMessages: 1 });
  });

  it('counts only messages whose work ran in the batch (a skipped type writes nothing), and no batch that committed nothing', async () => {
    const { provider } = recordingProvider();
    const { batcher: b, counters } = batcher(4);
    await b.run(async () => 'skipped');
    expect(counters).toEqual({ batches: 0, batchedMessages: 0 });
    await Promise.all([b.run(() => unit(provider, tick)), b.run(async () => 'skipped')]);
    expect(counters).toEqual({ batches: 1, batchedMessages: 1 });
  });

  it('puts messages running together in one batch up to its size, and the rest in the next', async () => {
    const { provider, log } = recordingProvider();
    const { batcher: b, counters } = batcher(3);
    await Promise.all(Array.from({ length: 5 }, () => b.run(() => unit(provider, tick))));
    expect(log.filter((line) => line.endsWith('commit'))).toEqual(['b1 commit', 'b2 commit']);
    expect(log.filter((line) => line.startsWith('b1 savepoint'))).toHaveLength(3);
    expect(log.filter((line) => line.startsWith('b2 savepoint'))).toHaveLength(2);
    expect(counters).toEqual({ batches: 2, batchedMessages: 5 });
  });

  it('resolves a member only after its batch committed', async () => {
    const { provider, log } = recordingProvider();
    const { batcher: b } = batcher(4);
    const order: string[] = [];
    const fast = b.run(() => unit(provider)).then(() => order.push(`fast resolved after ${log.at(-1)}`));
    const slow = b.run(() => unit(provider, () => new Promise((resolve) => setTimeout(resolve, 30))));
    await Promise.all([fast, slow]);
    expect(order).toEqual(['fast resolved after b1 commit']);
  });

  it('lets a failed member go at once and commits the others without it', async () => {
    const { provider, log } = recordingProvider();
    const { batcher: b, counters } = batcher(4);
    const results = await Promise.allSettled([b.run(() => unit(provider, tick)), b.run(() => unit(provider, tick, true)), b.run(() => unit(provider, tick))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(log).toContain('b1 rollback 2');
    expect(log.at(-1)).toBe('b1 commit');
    expect(counters).toEqual({ batches: 1, batchedMessages: 2 });
  });

  it('fails every member with BatchCommitError when the commit fails, and counts no batch', async () => {
    const { provider, state } = recordingProvider();
    const { batcher: b, counters } = batcher(4);
    state.failCommit = true;
    const results = await Promise.allSettled([b.run(() => unit(provider, tick)), b.run(() => unit(provider, tick))]);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BatchCommitError);
    }
    expect(counters).toEqual({ batches: 0, batchedMessages: 0 });
    // The next message starts a new batch, which commits.
    await b.run(() => unit(provider));
    expect(counters).toEqual({ batches: 1, batchedMessages: 1 });
  });

  it('runs after-commit work only once the batch committed, and never when it did not', async () => {
    const { provider, log, state } = recordingProvider();
    const { batcher: b } = batcher(4);
    const ran: string[] = [];
    await b.run(async () => {
      const claim = claimBatch()!;
      const tx = await claim.savepointFor(provider)!;
      await tx.commit();
      claim.afterBatchCommit(async () => void ran.push(`after ${log.at(-1)}`));
      claim.release();
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['after b1 commit']);
    state.failCommit = true;
    await expect(
      b.run(async () => {
        const claim = claimBatch()!;
        await claim.savepointFor(provider);
        claim.afterBatchCommit(async () => void ran.push('after a failed commit'));
        claim.release();
      }),
    ).rejects.toBeInstanceOf(BatchCommitError);
    expect(ran).not.toContain('after a failed commit');
  });

  it('gives a unit started while another of the same message holds the batch no claim (it commits alone)', async () => {
    const { batcher: b } = batcher(4);
    await b.run(async () => {
      const outer = claimBatch();
      expect(outer).toBeDefined();
      expect(claimBatch()).toBeUndefined();
      outer!.release();
      expect(claimBatch()).toBeDefined();
    });
    expect(claimBatch()).toBeUndefined();
  });
});
