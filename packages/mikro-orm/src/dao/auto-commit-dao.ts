/**
 * The DAO handed out outside a unit of work: reads run on the pool, and each write runs in its
 * own short transaction, so an aggregate and its child rows are still saved all or nothing.
 */
import type { AggregateDao, Filter, QuerySpec } from '@protean-ts/core';
import type { SqlExecutor, SqlTransaction } from '../sql-executor.js';
import type { AggregateMapping } from './aggregate-mapping.js';
import { PostgresAggregateDao } from './postgres-aggregate-dao.js';

export interface TransactionRunner {
  inTransaction<R>(work: (tx: SqlTransaction) => Promise<R>): Promise<R>;
}

export class AutoCommitAggregateDao<T extends object> implements AggregateDao<T> {
  private readonly reader: PostgresAggregateDao<T>;

  constructor(
    private readonly mapping: AggregateMapping<T>,
    pool: SqlExecutor,
    private readonly transactions: TransactionRunner,
  ) {
    this.reader = new PostgresAggregateDao(mapping, pool);
  }

  get(id: string): Promise<T | undefined> {
    return this.reader.get(id);
  }

  query(spec: QuerySpec<T>): Promise<T[]> {
    return this.reader.query(spec);
  }

  count(filter?: Filter<T>): Promise<number> {
    return this.reader.count(filter);
  }

  save(aggregate: T, expectedVersion: number): Promise<void> {
    return this.transactions.inTransaction((tx) => new PostgresAggregateDao(this.mapping, tx).save(aggregate, expectedVersion));
  }

  delete(id: string): Promise<boolean> {
    return this.transactions.inTransaction((tx) => new PostgresAggregateDao(this.mapping, tx).delete(id));
  }
}
