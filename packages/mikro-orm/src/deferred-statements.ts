/**
 * The statements a transaction keeps for its commit (SqlTransaction.deferUntilCommit): run in the
 * order they were first deferred, just before the COMMIT, except that one flush that
 * `ridesWithCommit` runs last and carries the COMMIT in its own round trip.
 */
import { TransactionStateError } from '@protean-ts/core';
import type { DeferredFlush, ExecuteOptions, SqlExecutor, SqlResult } from './sql-executor.js';

/** Items kept for one statement at the commit. */
export interface Deferred {
  items: unknown[];
  flush: DeferredFlush<unknown>;
}

/** Sends a statement followed by COMMIT in one round trip. */
export type CommittingRun = <R>(sql: string, params?: readonly unknown[], options?: ExecuteOptions) => Promise<SqlResult<R>>;

/** Runs every deferred flush; returns true when the COMMIT went out with the last one (then the caller sends none). */
export async function runDeferred(deferred: ReadonlyMap<object, Deferred>, executor: SqlExecutor, withCommit: CommittingRun | undefined): Promise<boolean> {
  const entries = [...deferred.values()];
  let rider = -1;
  if (withCommit) entries.forEach((entry, index) => (rider = entry.flush.ridesWithCommit === true ? index : rider));
  for (const [index, entry] of entries.entries()) if (index !== rider) await entry.flush(executor, entry.items);
  if (rider < 0) return false;
  let committed = false;
  const committing: SqlExecutor = {
    qualify: (table) => executor.qualify(table),
    execute: (sql, params, options) => {
      if (committed) {
        throw new TransactionStateError(
          'A deferred statement that rides with the COMMIT ran a second statement after the COMMIT; mark only a flush of exactly one statement `ridesWithCommit`',
        );
      }
      committed = true;
      return withCommit!(sql, params, options);
    },
  };
  await entries[rider]!.flush(committing, entries[rider]!.items);
  return committed;
}
