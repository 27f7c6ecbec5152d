/**
 * A unit of work in a batch (batched handling) must end every savepoint it was handed: an open
 * savepoint holds the batch's turn, and the batch would never commit.
 */
import { describe, expect, it } from 'vitest';
import { runInBatch, TransactionStateError, UnitOfWork, type BatchClaim, type DatabaseProvider, type ProviderTransaction } from '../../src/index.js';

function fakeSavepoint(): ProviderTransaction & { ended: string[] } {
  const ended: string[] = [];
  return { providerName: 'db', ended, commit: async () => void ended.push('commit'), rollback: async () => void ended.push('rollback') };
}

describe('a unit of work in a batch', () => {
  it('rolls back a savepoint that was still opening when the unit rolled back', async () => {
    const savepoint = fakeSavepoint();
    let handOut!: (tx: ProviderTransaction) => void;
    const opening = new Promise<ProviderTransaction>((resolve) => (handOut = resolve));
    const claim: BatchClaim = { savepointFor: () => opening, afterBatchCommit: () => undefined, release: () => undefined };
    const provider = { name: 'db', begin: () => Promise.reject(new Error('a batched unit takes savepoints')) } as unknown as DatabaseProvider;
    const unit = await runInBatch(
      { claim: () => claim },
      async () => new UnitOfWork({ domainName: 'Test', provider: () => provider, outboxRowsFor: () => [] }),
    );

    // A sibling of a Promise.all fails while the transaction is opening: the unit rolls back first.
    const using = unit.transactionFor('db');
    await unit.rollback();
    handOut(savepoint);

    await expect(using).rejects.toBeInstanceOf(TransactionStateError);
    expect(savepoint.ended).toEqual(['rollback']);
    expect(unit.transactionsByProvider.size).toBe(0);
  });
});
