/**
 * One unit of work's share of a batched transaction (postgres-batch-transaction.ts): a savepoint
 * that DAOs, the outbox, the inbox and the command outcomes use exactly like a
 * PostgresTransaction. Its first statement carries `SAVEPOINT s<N>` in the same round trip (and
 * the batch's BEGIN when it is the batch's first), so a savepoint costs no round trip of its own.
 *
 * Committing it sends nothing: the savepoint is not released (RELEASE SAVEPOINT would cost a
 * statement per message), so the batch's savepoints stay nested until its COMMIT. Each one that
 * writes holds a subtransaction until then, which is why the server caps a batch at 64 messages:
 * PostgreSQL caches 64 subtransactions per backend, past that every snapshot taken by any session
 * gets slower. Its after-commit callbacks wait for the batch's COMMIT.
 */
import type { ProviderTransaction } from '@protean-ts/core';
import { TransactionStateError } from '@protean-ts/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { qualifiedName } from '../schema/column-naming.js';
import type { DeferredFlush, ExecuteOptions, SqlResult, SqlTransaction } from '../sql-executor.js';
import type { BatchConnection } from './batch-connection.js';
import type { Deferred } from '../deferred-statements.js';

type State = 'active' | 'committed' | 'rolled back';

/** How a savepoint ended, as its batch is told. */
export type SavepointEnding =
  /** Its work stays in the batch; the callbacks run once the batch has committed. */
  | { kind: 'released'; callbacks: ReadonlySet<() => void>; deferred: ReadonlyMap<object, Deferred>; established: ReadonlySet<string> }
  | { kind: 'rolled back' }
  /** Rolling back to it failed (a broken connection): what the batch holds is unknown. */
  | { kind: 'broken'; error: Error };

export type { Deferred } from '../deferred-statements.js';

export class PostgresSavepoint implements ProviderTransaction, SqlTransaction {
  private state: State = 'active';
  /** Set when a statement failed: PostgreSQL has aborted the transaction until ROLLBACK TO SAVEPOINT. */
  private failure: Error | undefined;
  /** Set once the first statement (which carries `SAVEPOINT`) has been sent. */
  private sent = false;
  private readonly committedCallbacks = new Set<() => void>();
  private readonly deferred = new Map<object, Deferred>();
  /** What this savepoint established for the rest of the batch (see establishForBatch). */
  private readonly established = new Set<string>();

  constructor(
    /** `s<N>`, N counting the batch's savepoints from 1. */
    readonly name: string,
    readonly providerName: string,
    private readonly schemaName: string,
    private readonly connection: BatchConnection,
    private readonly ended: (ending: SavepointEnding) => void,
    /** What savepoints of the batch released before this one established. */
    private readonly batchEstablished: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * True when this savepoint, or one of the batch released before it, established `fact`. A
   * released savepoint is never rolled back to (a later one rolls back to its own name, nested
   * inside it), so what it did (a row lock it took, say) lasts until the batch ends.
   */
  knowsForBatch(fact: string): boolean {
    return this.batchEstablished.has(fact) || this.established.has(fact);
  }

  /** Records `fact` (e.g. "this row is locked FOR SHARE") for the savepoints after this one, once it is released. */
  establishForBatch(fact: string): void {
    this.established.add(fact);
  }

  get isActive(): boolean {
    return this.state === 'active';
  }

  async execute<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: ExecuteOptions): Promise<SqlResult<R>> {
    this.assertActive('run a statement');
    // Decided here, not in the statement's turn: turns run in the order they are handed in, so the
    // first statement handed in is the first to go out.
    const opening = this.sent ? [] : [`SAVEPOINT ${this.name}`];
    this.sent = true;
    try {
      return await this.connection.run<R>(sql, params, options, opening);
    } catch (error) {
      this.failure ??= error as Error;
      throw error;
    }
  }

  qualify(table: string): string {
    return qualifiedName(this.schemaName, table);
  }

  /**
   * Runs `callback` once the whole batch has committed and its connection is back in the pool;
   * never when this savepoint or the batch rolls back. The same function registered twice (by
   * this or another savepoint of the batch) runs once. It must not throw.
   */
  afterCommit(callback: () => void): void {
    this.assertActive('register an after-commit callback');
    this.committedCallbacks.add(callback);
  }

  /**
   * Keeps `items` for one statement at the batch's commit (the outbox's rows: one append for the
   * whole batch instead of one per message). Dropped if this savepoint rolls back.
   */
  deferUntilCommit<T>(key: object, items: readonly T[], flush: DeferredFlush<T>): boolean {
    this.assertActive('defer a statement to the commit');
    let entry = this.deferred.get(key);
    if (!entry) {
      entry = { items: [], flush: flush as DeferredFlush<unknown> };
      this.deferred.set(key, entry);
    }
    entry.items.push(...items);
    return true;
  }

  /**
   * Refused: knex would send a BEGIN of its own on the shared connection and commit or roll back
   * the whole batch with the fork.
   */
  entityManager(): Promise<SqlEntityManager> {
    return Promise.reject(
      new TransactionStateError(
        `Cannot open a MikroORM EntityManager in savepoint ${this.name} of a batched transaction of database "${this.providerName}": ` +
          'the EntityManager needs a transaction of its own. Set `ownTransaction: true` in the options of the handler’s decorator, ' +
          'or let the subscription handle one message at a time ([server.stream_subscription] batch_size = 1)',
      ),
    );
  }

  /**
   * Keeps this savepoint's work in the batch (without RELEASE SAVEPOINT, see above). When one of
   * its statements failed, rolls back to the savepoint instead and throws.
   */
  async commit(): Promise<void> {
    this.assertActive('commit');
    // A statement still running may yet fail.
    await this.connection.settled();
    this.assertActive('commit');
    if (this.failure) {
      await this.rollback();
      throw new TransactionStateError(
        `Cannot commit: a statement in savepoint ${this.name} of the batched transaction of database "${this.providerName}" failed ` +
          `(${this.failure.message}), so PostgreSQL aborted it; it was rolled back to the savepoint`,
      );
    }
    this.state = 'committed';
    this.ended({ kind: 'released', callbacks: this.committedCallbacks, deferred: this.deferred, established: this.established });
  }

  /** Undoes this savepoint's work only; idempotent, so cleanup paths may always call it. */
  async rollback(): Promise<void> {
    if (this.state !== 'active') return;
    this.state = 'rolled back';
    if (!this.sent) {
      this.ended({ kind: 'rolled back' });
      return;
    }
    try {
      // In turn: sent while a statement is still running, it would queue inside the driver.
      await this.connection.end(`ROLLBACK TO SAVEPOINT ${this.name}`);
    } catch (error) {
      // Not thrown: cleanup paths call rollback. The batch refuses to commit instead.
      this.ended({ kind: 'broken', error: error as Error });
      return;
    }
    this.ended({ kind: 'rolled back' });
  }

  /** Ends this savepoint without a statement, because the batch itself rolls back. */
  abandon(): void {
    if (this.state !== 'active') return;
    this.state = 'rolled back';
    this.ended({ kind: 'rolled back' });
  }

  private assertActive(operation: string): void {
    if (this.state !== 'active') {
      throw new TransactionStateError(
        `Cannot ${operation}: savepoint ${this.name} of the batched transaction of database "${this.providerName}" is already ${this.state}`,
      );
    }
  }
}
