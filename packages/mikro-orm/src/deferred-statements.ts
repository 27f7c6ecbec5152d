/**
 * The statements a transaction keeps for its commit (SqlTransaction.deferUntilCommit): run in the
 * order they were first deferred, just before the COMMIT, except the flushes that
 * `ridesWithCommit` (the outbox append, the inbox's trusted advances): their statements go out
 * together with the COMMIT, one round trip for all of them.
 */
import { TransactionStateError } from '@protean-ts/core';
import type { DeferredFlush, ExecuteOptions, SqlExecutor, SqlResult } from './sql-executor.js';

/** Items kept for one statement at the commit. */
export interface Deferred {
  items: unknown[];
  flush: DeferredFlush<unknown>;
}

/** A statement of a flush that rides with the COMMIT. */
export interface RidingStatement {
  sql: string;
  params: readonly unknown[];
  options: ExecuteOptions | undefined;
}

/** Sends the statements, in order, then COMMIT, in one round trip; one result per statement. */
export type CommittingRun = (statements: readonly RidingStatement[]) => Promise<SqlResult<unknown>[]>;

interface PendingStatement extends RidingStatement {
  resolve(result: SqlResult<unknown>): void;
  reject(error: unknown): void;
}

/** Runs every deferred flush; returns true when the COMMIT went out with the riders (then the caller sends none). */
export async function runDeferred(deferred: ReadonlyMap<object, Deferred>, executor: SqlExecutor, withCommit: CommittingRun | undefined): Promise<boolean> {
  const entries = [...deferred.values()];
  const riders = withCommit ? entries.filter((entry) => entry.flush.ridesWithCommit === true) : [];
  for (const entry of entries) if (!riders.includes(entry)) await entry.flush(executor, entry.items);
  if (riders.length === 0) return false;

  // Each rider hands its one statement over as it starts (synchronously) and is answered when the
  // round trip returns; a failing statement rejects every rider, each translating what it knows.
  const pending: PendingStatement[] = [];
  let collecting = true;
  const collector: SqlExecutor = {
    qualify: (table) => executor.qualify(table),
    execute: (sql, params = [], options) =>
      collecting
        ? new Promise((resolve, reject) => pending.push({ sql, params, options, resolve: resolve as PendingStatement['resolve'], reject }))
        : Promise.reject(riderRefusal()),
  };
  const settled = Promise.allSettled(riders.map((rider) => rider.flush(collector, rider.items)));
  collecting = false;
  if (pending.length !== riders.length) {
    // A rider failed before its statement (a check of its items) or did not run one at once: send nothing.
    const refusal = riderRefusal();
    pending.forEach((statement) => statement.reject(refusal));
    throw chosenFailure(await settled, refusal) ?? refusal;
  }
  let databaseError: unknown;
  withCommit!(pending).then(
    (results) => pending.forEach((statement, index) => statement.resolve(results[index]!)),
    (error: unknown) => {
      databaseError = error;
      pending.forEach((statement) => statement.reject(error));
    },
  );
  const failure = chosenFailure(await settled, databaseError);
  if (failure !== undefined) throw failure;
  return true;
}

function riderRefusal(): TransactionStateError {
  return new TransactionStateError(
    'A deferred statement that rides with the COMMIT must run exactly one statement, at once; the transaction was not committed',
  );
}

/** The error to report: one a rider translated (it names what failed) before the one every rider got. */
function chosenFailure(outcomes: readonly PromiseSettledResult<void>[], shared: unknown): unknown {
  const reasons = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected').map((outcome) => outcome.reason as unknown);
  return reasons.find((reason) => reason !== shared) ?? reasons[0];
}

/** Used by a CommittingRun for the statements that go ahead of the last: riders need nothing back. */
export const NO_ROWS: SqlResult<unknown> = Object.freeze({ rows: [], rowCount: 0 }) as SqlResult<unknown>;
