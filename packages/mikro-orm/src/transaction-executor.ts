/**
 * The unit of work's transaction as a SqlTransaction, for stores that write inside it (outbox,
 * inbox); a transaction of another provider is refused with the reason it matters.
 */
import { TransactionStateError, type ProviderTransaction } from '@protean-ts/core';
import type { SqlTransaction } from './sql-executor.js';

/** `store` names the caller ("the outbox"); `why` ends the message ("so the rows commit with the aggregate"). */
export function transactionExecutor(tx: ProviderTransaction, providerName: string, store: string, why: string): SqlTransaction {
  const executor = tx as ProviderTransaction & Partial<SqlTransaction>;
  if (typeof executor?.execute !== 'function' || typeof executor.afterCommit !== 'function' || tx.providerName !== providerName) {
    throw new TransactionStateError(
      `${store} of PostgreSQL database "${providerName}" was given a transaction of "${tx?.providerName ?? 'unknown'}"; ` +
        `use a transaction opened by this provider, ${why}`,
    );
  }
  return executor as SqlTransaction;
}
