/**
 * A unit-of-work transaction of a PostgreSQL provider: one pooled connection inside BEGIN … COMMIT.
 * DAOs and the outbox store run statements on it through `execute`; code that wants MikroORM's
 * EntityManager in the same transaction asks for `entityManager()`, a fork bound to it.
 *
 * Statements take turns on the connection (ConnectionTurns): callers may run several at once
 * (a handler's `Promise.all` of finds), and COMMIT or ROLLBACK only goes out once every statement
 * before it has finished.
 *
 * BEGIN is deferred: `begin` only takes a connection, and BEGIN goes out with the first statement,
 * in the same round trip (connection/pipelined-prefix.ts). A transaction that never ran a
 * statement has nothing to commit or roll back and sends nothing. COMMIT is brought forward the
 * same way: the outbox's append, deferred to the commit, takes the COMMIT along in its round trip.
 *
 * The fork is made on demand because forking and MikroORM's transaction bookkeeping cost more
 * than the inserts of a typical commit (measured in bench/persistence); most units of work never
 * need it.
 */
import type { ProviderTransaction } from '@protean-ts/core';
import { TransactionStateError } from '@protean-ts/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/postgresql';
import type { ConnectionPool } from './connection/connection-pool.js';
import { ConnectionTurns } from './connection/connection-turns.js';
import type { PgConnection } from './connection/pg-connection.js';
import type { StatementRunner } from './connection/statement-runner.js';
import { qualifiedName } from './schema/column-naming.js';
import type { DeferredFlush, ExecuteOptions, SqlExecutor, SqlResult, SqlTransaction } from './sql-executor.js';
import { runDeferred, type CommittingRun, type Deferred, type RidingStatement } from './deferred-statements.js';

type State = 'active' | 'committed' | 'rolled back';

export class PostgresTransaction implements ProviderTransaction, SqlTransaction {
  private state: State = 'active';
  /** Set when a statement failed: PostgreSQL has aborted the transaction and COMMIT would roll back. */
  private failure: Error | undefined;
  private released = false;
  /** Set once BEGIN has been sent (with the first statement, or by knex for the EntityManager). */
  private begun = false;
  private fork: { em: SqlEntityManager; trx: Knex.Transaction } | undefined;
  private readonly turns = new ConnectionTurns();
  private readonly committedCallbacks = new Set<() => void>();
  /** Statements kept for the commit: only flushes that ride with the COMMIT (deferUntilCommit). */
  private readonly deferred = new Map<object, Deferred>();

  private constructor(
    readonly providerName: string,
    private readonly schemaName: string,
    private readonly pool: ConnectionPool,
    private readonly runner: StatementRunner,
    private readonly connection: PgConnection,
  ) {}

  static async begin(providerName: string, schemaName: string, pool: ConnectionPool, runner: StatementRunner): Promise<PostgresTransaction> {
    const connection = await pool.acquire();
    return new PostgresTransaction(providerName, schemaName, pool, runner, connection);
  }

  get isActive(): boolean {
    return this.state === 'active';
  }

  async execute<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: ExecuteOptions): Promise<SqlResult<R>> {
    this.assertActive('run a statement');
    // A statement after a deferred append sees its rows, as if nothing had been deferred.
    if (this.deferred.size > 0) await this.flushDeferred(undefined);
    try {
      return await this.turns.run(() => {
        if (this.begun) return this.runner.run<R>(this.connection, sql, params, options);
        // Set before the answer: if the statement fails, BEGIN has (practically always) run and the
        // transaction is aborted, so ROLLBACK must go out. If the error came before BEGIN ran (a
        // named statement's Parse goes first), that ROLLBACK only draws a warning.
        this.begun = true;
        return this.runner.runWithBegin<R>(this.connection, sql, params, options);
      });
    } catch (error) {
      this.failure ??= error as Error;
      throw error;
    }
  }

  qualify(table: string): string {
    return qualifiedName(this.schemaName, table);
  }

  /**
   * Runs `callback` once this transaction has committed and its connection is back in the pool
   * (never on rollback). Registering the same function twice runs it once. It must not throw:
   * the commit has happened, so there is no one left to tell.
   */
  afterCommit(callback: () => void): void {
    this.assertActive('register an after-commit callback');
    this.committedCallbacks.add(callback);
  }

  /**
   * Keeps a flush that `ridesWithCommit` (the outbox's append, the inbox's trusted advance) for the
   * commit, where it goes out with the COMMIT in one round trip; any other flush is refused (false:
   * the caller runs it now).
   */
  deferUntilCommit<T>(key: object, items: readonly T[], flush: DeferredFlush<T>): boolean {
    this.assertActive('defer a statement to the commit');
    if (flush.ridesWithCommit !== true) return false;
    let entry = this.deferred.get(key);
    if (!entry) {
      entry = { items: [], flush: flush as DeferredFlush<unknown> };
      this.deferred.set(key, entry);
    }
    entry.items.push(...items);
    return true;
  }

  /**
   * A MikroORM EntityManager (forked) whose queries run in this transaction; what it has
   * persisted is flushed before COMMIT.
   */
  async entityManager(): Promise<SqlEntityManager> {
    this.assertActive('open an EntityManager');
    if (!this.fork) {
      const em = this.pool.orm.em.fork({ clear: true });
      // knex adopts this connection and sends a BEGIN of its own (answered with a warning only
      // when statements have already begun the transaction). COMMIT/ROLLBACK then go through knex.
      const trx = await this.turns.run(() => {
        this.begun = true;
        return em.getKnex().transaction(undefined, { connection: this.connection } as Knex.TransactionConfig);
      });
      em.setTransactionContext(trx);
      this.fork = { em, trx };
    }
    return this.fork.em;
  }

  async commit(): Promise<void> {
    this.assertActive('commit');
    // A statement still running may yet fail; COMMIT on an aborted transaction would roll back quietly.
    await this.turns.settled();
    this.assertActive('commit');
    if (this.failure) {
      await this.rollback();
      throw new TransactionStateError(
        `Cannot commit: a statement in the transaction of database "${this.providerName}" failed (${this.failure.message}), so PostgreSQL aborted it; it was rolled back`,
      );
    }
    try {
      const fork = this.fork;
      if (fork) {
        await this.flushDeferred(undefined);
        await this.turns.run(async () => {
          await fork.em.flush();
          await fork.trx.commit();
        });
      } else {
        const committed = await this.flushDeferred((statements) => this.runAllThenCommit(statements));
        if (!committed && this.begun) await this.turns.run(() => this.runner.run(this.connection, 'COMMIT'));
      }
      this.state = 'committed';
    } catch (error) {
      // A failed COMMIT (or flush) leaves nothing applied; make sure the connection is clean.
      await this.abort();
      throw error;
    } finally {
      await this.finish();
    }
    for (const callback of this.committedCallbacks) callback();
  }

  /** Runs the deferred statements now (taken out first: they run through `execute`), the last with the COMMIT when `withCommit` is given. */
  private flushDeferred(withCommit: CommittingRun | undefined): Promise<boolean> {
    const deferred = new Map(this.deferred);
    this.deferred.clear();
    // Through `execute`, in turn, BEGIN first if nothing has begun the transaction yet.
    const executor: SqlExecutor = { execute: (sql, params, options) => this.execute(sql, params, options), qualify: (table) => this.qualify(table) };
    return runDeferred(deferred, executor, withCommit);
  }

  private runAllThenCommit(statements: readonly RidingStatement[]): Promise<SqlResult<unknown>[]> {
    return this.turns.run(() => {
      const begin = !this.begun;
      // As in execute: once sent, BEGIN has (practically always) run, so a failure needs ROLLBACK.
      this.begun = true;
      return this.runner.runAllThenCommit(this.connection, begin, statements);
    });
  }

  /** Idempotent, so cleanup paths may always call it. */
  async rollback(): Promise<void> {
    if (this.state !== 'active') return;
    try {
      await this.abort();
    } finally {
      await this.finish();
    }
  }

  private async abort(): Promise<void> {
    this.state = 'rolled back';
    this.deferred.clear();
    const fork = this.fork;
    // In turn: a ROLLBACK sent while a statement is still running would queue inside the driver.
    if (fork) await this.turns.run(() => fork.trx.rollback()).catch(() => undefined);
    else if (this.begun) await this.turns.run(() => this.runner.run(this.connection, 'ROLLBACK')).catch(() => undefined);
  }

  private async finish(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.fork) this.fork.em.clear();
    await this.pool.release(this.connection);
  }

  private assertActive(operation: string): void {
    if (this.state !== 'active') {
      throw new TransactionStateError(`Cannot ${operation}: the transaction of database "${this.providerName}" is already ${this.state}`);
    }
  }
}
