/**
 * Narrows the unit of work's `ProviderTransaction` to the PostgreSQL transaction it is: its own
 * PostgresTransaction, or its savepoint in a batched transaction (PostgresSavepoint). Both are a
 * SqlTransaction with `entityManager()`, for code that writes inside the same transaction as the
 * aggregates (a savepoint refuses the EntityManager, with the way out in its message).
 */
import { TransactionStateError, type ProviderTransaction } from '@protean-ts/core';
import { PostgresSavepoint } from './batch/postgres-savepoint.js';
import { PostgresTransaction } from './postgres-transaction.js';

/** What a unit of work holds for a PostgreSQL provider. */
export type PostgresUnitTransaction = PostgresTransaction | PostgresSavepoint;

export function isPostgresUnitTransaction(tx: ProviderTransaction | undefined): tx is PostgresUnitTransaction {
  return tx instanceof PostgresTransaction || tx instanceof PostgresSavepoint;
}

export function sqlTransactionOf(tx: ProviderTransaction): PostgresUnitTransaction {
  if (isPostgresUnitTransaction(tx)) return tx;
  throw new TransactionStateError(
    `Expected a PostgreSQL transaction, got one of database "${tx?.providerName ?? 'unknown'}"; this code needs provider = "postgresql"`,
  );
}
