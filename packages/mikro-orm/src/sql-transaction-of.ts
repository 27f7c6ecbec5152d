/**
 * Narrows the unit of work's `ProviderTransaction` to a `PostgresTransaction` (a SqlTransaction
 * with `entityManager()`), for code that writes inside the same transaction as the aggregates.
 */
import { TransactionStateError, type ProviderTransaction } from '@protean-ts/core';
import { PostgresTransaction } from './postgres-transaction.js';

export function sqlTransactionOf(tx: ProviderTransaction): PostgresTransaction {
  if (tx instanceof PostgresTransaction) return tx;
  throw new TransactionStateError(
    `Expected a PostgreSQL transaction, got one of database "${tx?.providerName ?? 'unknown'}"; this code needs provider = "postgresql"`,
  );
}
