/**
 * A PostgreSQL transaction that several units of work share (batched handling in stream
 * subscriptions): one pooled connection, one BEGIN and one COMMIT for many messages, each
 * message's work inside a savepoint of its own (postgres-savepoint.ts), so one failing message
 * rolls back only its own work.
 *
 * Savepoints take turns: `savepoint()` resolves once the previous one has committed or rolled
 * back, so statements of two units of work never interleave on the connection. BEGIN is deferred
 * as in PostgresTransaction: it goes out with the first statement of the first savepoint, and a
 * batch that ran nothing sends nothing.
 */
import type { BatchTransaction } from '@protean-ts/core';
import { TransactionStateError } from '@protean-ts/core';
import type { ConnectionPool } from '../connection/connection-pool.js';
import type { PgConnection } from '../connection/pg-connection.js';
import type { StatementRunner } from '../connection/statement-runner.js';
import { BatchConnection } from './batch-connection.js';
import type { SqlExecutor } from '../sql-executor.js';
import { qualifiedName } from '../schema/column-naming.js';
import { PostgresSavepoint, type SavepointEnding } from './postgres-savepoint.js';
import { runDeferred, type Deferred } from '../deferred-statements.js';

type State = 'active' | 'committed' | 'rolled back';

export class PostgresBatchTransaction implements BatchTransaction {
  private state: State = 'active';
  private released = false;
  private savepointCount = 0;
  private open: PostgresSavepoint | undefined;
  /** Resolves once the last savepoint handed out (or still waiting for its turn) has ended. */
  private lastEnded: Promise<void> = Promise.resolve();
  /** A savepoint whose rollback failed: the batch can no longer commit. */
  private broken: { savepoint: string; error: Error } | undefined;
  private readonly committedCallbacks = new Set<() => void>();
  /** Statements the released savepoints left for the commit, their items merged in savepoint order. */
  private readonly deferred = new Map<object, Deferred>();
  /** What released savepoints established for the rest of the batch (PostgresSavepoint.knowsForBatch). */
  private readonly established = new Set<string>();
  private readonly connection: BatchConnection;

  private constructor(
    readonly providerName: string,
    private readonly schemaName: string,
    private readonly pool: ConnectionPool,
    runner: StatementRunner,
    pooled: PgConnection,
    /** Gives back the provider's batch permit (BatchPermits) once the connection is back in the pool. */
    private readonly ended: () => void,
  ) {
    this.connection = new BatchConnection(runner, pooled);
  }

  static async begin(
    providerName: string,
    schemaName: string,
    pool: ConnectionPool,
    runner: StatementRunner,
    ended: () => void = () => undefined,
  ): Promise<PostgresBatchTransaction> {
    const connection = await pool.acquire();
    return new PostgresBatchTransaction(providerName, schemaName, pool, runner, connection, ended);
  }

  get isActive(): boolean {
    return this.state === 'active';
  }

  /** The next savepoint, once the previous one has committed or rolled back. */
  async savepoint(): Promise<PostgresSavepoint> {
    this.assertOpenable();
    const previous = this.lastEnded;
    let endTurn!: () => void;
    this.lastEnded = new Promise<void>((resolve) => (endTurn = resolve));
    await previous;
    try {
      // The batch may have rolled back, or a savepoint broken it, while this one waited.
      this.assertOpenable();
    } catch (error) {
      endTurn();
      throw error;
    }
    const savepoint: PostgresSavepoint = new PostgresSavepoint(
      `s${++this.savepointCount}`,
      this.providerName,
      this.schemaName,
      this.connection,
      (ending) => {
        this.savepointEnded(savepoint, ending);
        endTurn();
      },
      this.established,
    );
    this.open = savepoint;
    return savepoint;
  }

  /**
   * Commits the work of every savepoint committed so far, returns the connection to the pool,
   * then runs their after-commit callbacks. Refused while a savepoint is open.
   */
  async commit(): Promise<void> {
    this.assertActive('commit');
    if (this.open) {
      throw new TransactionStateError(
        `Cannot commit the batched transaction of database "${this.providerName}": its savepoint ${this.open.name} is still open; commit or roll back the savepoint first`,
      );
    }
    if (this.broken) {
      const { savepoint, error } = this.broken;
      await this.rollback();
      throw new TransactionStateError(
        `Cannot commit the batched transaction of database "${this.providerName}": rolling back to its savepoint ${savepoint} failed ` +
          `(${error.message}), so what it holds is unknown; the whole batch was rolled back`,
      );
    }
    try {
      const committed = await this.flushDeferred();
      if (!committed && this.connection.hasBegun) await this.connection.end('COMMIT');
      this.state = 'committed';
    } catch (error) {
      // A failed COMMIT leaves nothing applied; make sure the connection is clean.
      await this.abort();
      throw error;
    } finally {
      await this.finish();
    }
    for (const callback of this.committedCallbacks) callback();
  }

  /** Rolls back every savepoint's work, an open savepoint's too; idempotent. */
  async rollback(): Promise<void> {
    if (this.state !== 'active') return;
    try {
      await this.abort();
    } finally {
      await this.finish();
    }
  }

  /**
   * Runs the deferred statements in the batch's transaction, each once with every savepoint's
   * items; true when the COMMIT went out with the last of them.
   */
  private async flushDeferred(): Promise<boolean> {
    if (this.deferred.size === 0) return false;
    const executor: SqlExecutor = {
      execute: (sql, params, options) => this.connection.run(sql, params, options),
      qualify: (table) => qualifiedName(this.schemaName, table),
    };
    const committed = await runDeferred(this.deferred, executor, (statements) => this.connection.runAllThenCommit(statements));
    this.deferred.clear();
    return committed;
  }

  private savepointEnded(savepoint: PostgresSavepoint, ending: SavepointEnding): void {
    if (this.open === savepoint) this.open = undefined;
    if (ending.kind === 'released') {
      for (const callback of ending.callbacks) this.committedCallbacks.add(callback);
      for (const fact of ending.established) this.established.add(fact);
      for (const [key, { items, flush }] of ending.deferred) {
        const merged = this.deferred.get(key);
        if (merged) merged.items.push(...items);
        else this.deferred.set(key, { items: [...items], flush });
      }
    }
    if (ending.kind === 'broken') this.broken ??= { savepoint: savepoint.name, error: ending.error };
  }

  private async abort(): Promise<void> {
    this.state = 'rolled back';
    // Ended first, so a savepoint() waiting for its turn wakes up and is refused.
    this.open?.abandon();
    // In turn, after whatever statement is still running (ROLLBACK drops the savepoints too).
    if (this.connection.hasBegun) await this.connection.end('ROLLBACK').catch(() => undefined);
  }

  private async finish(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      await this.pool.release(this.connection.connection);
    } finally {
      this.ended();
    }
  }

  private assertOpenable(): void {
    this.assertActive('open a savepoint');
    if (this.broken) {
      throw new TransactionStateError(
        `Cannot open a savepoint: rolling back to savepoint ${this.broken.savepoint} of the batched transaction of database "${this.providerName}" ` +
          `failed (${this.broken.error.message}); roll the batch back`,
      );
    }
  }

  private assertActive(operation: string): void {
    if (this.state !== 'active') {
      throw new TransactionStateError(`Cannot ${operation}: the batched transaction of database "${this.providerName}" is already ${this.state}`);
    }
  }
}
