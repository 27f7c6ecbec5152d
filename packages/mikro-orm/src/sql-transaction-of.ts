/**
 * Narrows the unit of work's `ProviderTransaction` to a PostgreSQL `SqlTransaction`, for code
 * (the outbox store, users' own SQL) that writes inside the same transaction as the aggregates.
 */
import { TransactionStateError, type ProviderTransaction } from '@protean-ts/core';
import { PostgresTransaction } from './postgres-transaction.js';
import type { SqlTransaction } from './sql-executor.js';

export function sqlTransactionOf(tx: ProviderTransaction): SqlTransaction {
  if (tx instanceof PostgresTransaction) return tx;
  throw new TransactionStateError(`Expected a PostgreSQL transaction, got one of database "${tx?.providerName ?? 'unknown'}"; this code needs provider = "postgresql"`);
}
