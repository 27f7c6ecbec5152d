/**
 * A unit of work in a batch (batched handling) must end every savepoint it was handed: an open
 * savepoint holds the batch's turn, and the batch would never commit. Its after-commit hooks
 * (whenCommitted) wait for the batch's commit; a unit that rolled back runs none.
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

  it('runs whenCommitted hooks after the batch commits, and never those of a unit that rolled back', async () => {
    const deferred: (() => Promise<void>)[] = [];
    const claim: BatchClaim = { savepointFor: async () => fakeSavepoint(), afterBatchCommit: (work) => void deferred.push(work), release: () => undefined };
    const provider = { name: 'db', begin: () => Promise.reject(new Error('a batched unit takes savepoints')) } as unknown as DatabaseProvider;
    const host = { domainName: 'Test', provider: () => provider, outboxRowsFor: () => [] };
    const ran: string[] = [];
    const unitIn = (name: string) =>
      runInBatch({ claim: () => claim }, async () => {
        const unit = new UnitOfWork(host);
        await unit.transactionFor('db');
        unit.whenCommitted(() => void ran.push(name));
        return unit;
      });

    await (await unitIn('committed')).commit();
    await (await unitIn('rolled back')).rollback();
    expect(ran).toEqual([]); // the batch has not committed yet
    for (const work of deferred) await work();
    expect(ran).toEqual(['committed']);
  });

  it('runs whenCommitted hooks right after the commit of a unit outside any batch', async () => {
    const provider = { name: 'db', begin: async () => fakeSavepoint() } as unknown as DatabaseProvider;
    const unit = new UnitOfWork({ domainName: 'Test', provider: () => provider, outboxRowsFor: () => [] });
    await unit.transactionFor('db');
    let ran = 0;
    unit.whenCommitted(() => void (ran += 1));
    await unit.commit();
    expect(ran).toBe(1);
  });
});
