/**
 * The small SQL surface other packages (the PostgreSQL outbox store, users' own code) use to run
 * statements inside the unit of work's transaction or on the pool, without touching MikroORM.
 * Placeholders are `?` (MikroORM/knex style); values are sent as bound parameters, never inlined.
 */

export interface SqlResult<R> {
  rows: R[];
  /** Rows inserted, updated, deleted or returned, as PostgreSQL reports it. */
  rowCount: number;
}

export interface ExecuteOptions {
  /**
   * Prepare the statement once per connection and reuse it (PostgreSQL skips parsing and
   * planning after the first run). For fixed texts run many times, not for texts built per call.
   */
  prepare?: boolean;
}

/** For a fixed text run over and over (most of the framework's own statements). */
export const PREPARED: ExecuteOptions = { prepare: true };

/** Runs SQL in one place: an open transaction, or the pool (auto-commit). */
export interface SqlExecutor {
  /**
   * Runs one statement. `?` marks a parameter; a backslash before it (`'\\?'` in a JS string) keeps a
   * literal `?`, e.g. for jsonb operators.
   * Pass jsonb values as `JSON.stringify(value)`: the driver turns JS arrays into PostgreSQL arrays.
   */
  execute<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: ExecuteOptions): Promise<SqlResult<R>>;
  /** `"schema"."table"`: the table name qualified with the provider's PostgreSQL schema. */
  qualify(table: string): string;
}

/** Callback of `listen`: the NOTIFY payload ('' when none). */
export type NotificationListener = (payload: string) => void;

/** The pool-level executor of one PostgreSQL provider, plus LISTEN/NOTIFY. */
export interface SqlDatabase extends SqlExecutor {
  /** The `[databases.<name>]` key. */
  readonly providerName: string;
  /** The PostgreSQL schema (namespace) this provider's tables live in; `public` by default. */
  readonly schemaName: string;
  /**
   * LISTENs on `channel` through one dedicated connection shared by all listeners of the provider
   * (re-established after a drop). Returns the function that stops this listener.
   */
  listen(channel: string, listener: NotificationListener): Promise<() => Promise<void>>;
}

/** A unit-of-work transaction of a PostgreSQL provider: `execute` runs inside it. */
export interface SqlTransaction extends SqlExecutor {
  readonly providerName: string;
  /**
   * Runs `callback` once the transaction has committed (never on rollback); the same function
   * registered twice runs once. It must not throw: the commit has already happened.
   */
  afterCommit(callback: () => void): void;
  /**
   * Keeps `items` for one statement run just before the COMMIT, `flush` receiving every item
   * deferred under `key` together, in the order deferred. In a batched transaction (a
   * PostgresSavepoint) every released savepoint's items are merged (a rolled-back savepoint's are
   * dropped); a plain transaction defers only a flush that `ridesWithCommit`. Returns false where
   * nothing is deferred, and the caller runs its statement itself. A failing flush rolls back.
   */
  deferUntilCommit?<T>(key: object, items: readonly T[], flush: DeferredFlush<T>): boolean;
}

/** Runs the statement for items deferred until a commit, inside the transaction. */
export type DeferredFlush<T> = ((executor: SqlExecutor, items: readonly T[]) => Promise<void>) & {
  /**
   * The flush runs exactly one statement, calling `execute` at once (before anything it awaits),
   * and needs nothing back from it but success: the statement goes out with the transaction's
   * COMMIT and any other such flush's statement, in one round trip (deferred-statements.ts). A
   * statement sent ahead of another answers with no rows.
   */
  readonly ridesWithCommit?: boolean;
};
