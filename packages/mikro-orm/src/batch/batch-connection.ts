/**
 * The one pooled connection a batched transaction holds. Statements take turns on it
 * (ConnectionTurns), as in PostgresTransaction, and BEGIN is deferred: it goes out with the first
 * statement, in the same round trip, ahead of that statement's own opening (`SAVEPOINT s1`).
 */
import { ConnectionTurns } from '../connection/connection-turns.js';
import type { PgConnection } from '../connection/pg-connection.js';
import type { StatementRunner } from '../connection/statement-runner.js';
import type { RidingStatement } from '../deferred-statements.js';
import type { ExecuteOptions, SqlResult } from '../sql-executor.js';

export class BatchConnection {
  /** Set once BEGIN has been sent (with the first statement of the first savepoint that ran one). */
  private begun = false;
  private readonly turns = new ConnectionTurns();

  constructor(
    private readonly runner: StatementRunner,
    readonly connection: PgConnection,
  ) {}

  get hasBegun(): boolean {
    return this.begun;
  }

  /**
   * Runs `sql` once every statement before it has finished, preceded in the same round trip by
   * `opening` (fixed statements such as `SAVEPOINT s2`), and by BEGIN when nothing has begun the
   * transaction yet.
   */
  run<R>(sql: string, params?: readonly unknown[], options?: ExecuteOptions, opening: readonly string[] = []): Promise<SqlResult<R>> {
    return this.turns.run(() => {
      const prefix = this.begun ? opening : ['BEGIN', ...opening];
      if (prefix.length === 0) return this.runner.run<R>(this.connection, sql, params, options);
      // Set before the answer, as in PostgresTransaction: if the statement fails, BEGIN has
      // (practically always) run, so ROLLBACK must go out.
      this.begun = true;
      return this.runner.runAfter<R>(this.connection, prefix, sql, params, options);
    });
  }

  /** Runs the statements (in turn) with the transaction's COMMIT right after them, in the same round trip. */
  runAllThenCommit(statements: readonly RidingStatement[]): Promise<SqlResult<unknown>[]> {
    return this.turns.run(() => {
      const begin = !this.begun;
      this.begun = true;
      return this.runner.runAllThenCommit(this.connection, begin, statements);
    });
  }

  /** Runs a statement that ends (part of) the transaction: COMMIT, ROLLBACK, ROLLBACK TO SAVEPOINT. */
  async end(sql: string): Promise<void> {
    await this.turns.run(() => this.runner.run(this.connection, sql));
  }

  /** Resolves once every statement handed in so far has finished. */
  settled(): Promise<void> {
    return this.turns.settled();
  }
}
