/**
 * The PostgreSQL `PartitionLeaseStore`: members and leases of the outbox broker's stream
 * partitions, in the `[inbox] database`. A claim is one short transaction holding the scope's
 * advisory lock, so members claiming at once take turns and each partition gets one owner.
 */
import type { PartitionClaim, PartitionLease, PartitionLeaseStore } from '@protean-ts/core';
import type { TransactionRunner } from '../dao/auto-commit-dao.js';
import { PREPARED, type SqlDatabase, type SqlExecutor } from '../sql-executor.js';
import { partitionLeaseTableNames, type PartitionLeaseTableNames } from './partition-lease-tables.js';
import {
  dropExpiredMembersSql,
  forgetMemberSql,
  heldSql,
  leasesSql,
  lockScopeSql,
  membersSql,
  recordMemberSql,
  releaseSql,
  takeSql,
} from './partition-leases.sql.js';

interface LeaseRow {
  partition: number;
  owner: string | null;
  epoch: string;
  expires_at: Date | string | null;
}

export class PostgresPartitionLeases implements PartitionLeaseStore {
  readonly tables: PartitionLeaseTableNames;

  constructor(
    private readonly db: SqlDatabase,
    private readonly transactions: TransactionRunner,
  ) {
    this.tables = partitionLeaseTableNames((table) => db.qualify(table));
  }

  claim(scope: string, member: string, wanted: readonly number[], ttlMs: number): Promise<PartitionClaim> {
    return this.explainMissingTables(() => this.claimRound(scope, member, wanted, ttlMs));
  }

  private claimRound(scope: string, member: string, wanted: readonly number[], ttlMs: number): Promise<PartitionClaim> {
    return this.transactions.inTransaction(async (tx) => {
      await run(tx, lockScopeSql(scope));
      await run(tx, recordMemberSql(this.tables, scope, member, ttlMs));
      await run(tx, dropExpiredMembersSql(this.tables, scope));
      await run(tx, releaseSql(this.tables, scope, member, wanted));
      if (wanted.length > 0) await run(tx, takeSql(this.tables, scope, member, wanted, ttlMs));
      const members = (await run<{ member: string }>(tx, membersSql(this.tables, scope))).map((row) => row.member);
      const held = await run<{ partition: number; epoch: string }>(tx, heldSql(this.tables, scope, member));
      // Sorted here, not by the database's collation, so the order is the one assignedPartitions uses.
      return { members: members.sort(), held: held.map((row) => ({ partition: row.partition, epoch: Number(row.epoch) })) };
    });
  }

  async leave(scope: string, member: string): Promise<void> {
    await this.explainMissingTables(() =>
      this.transactions.inTransaction(async (tx) => {
        await run(tx, lockScopeSql(scope));
        await run(tx, forgetMemberSql(this.tables, scope, member));
        await run(tx, releaseSql(this.tables, scope, member, []));
      }),
    );
  }

  /** A database set up before partitions existed lacks the tables: say how to add them. */
  private async explainMissingTables<R>(work: () => Promise<R>): Promise<R> {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: unknown })?.code !== '42P01') throw error;
      throw new Error(
        `the partition lease tables (outbox.partitions > 1) are missing in PostgreSQL database "${this.db.providerName}"; run protean-ts db setup (or db setup-outbox) to create them`,
        { cause: error },
      );
    }
  }

  async leases(scope: string): Promise<PartitionLease[]> {
    const rows = await this.explainMissingTables(() => run<LeaseRow>(this.db, leasesSql(this.tables, scope)));
    return rows.map((row) => ({
      partition: row.partition,
      owner: row.owner,
      epoch: Number(row.epoch),
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    }));
  }
}

// Every text is fixed per table and a claim round repeats every few seconds per worker: prepared.
async function run<R = Record<string, unknown>>(executor: SqlExecutor, statement: { sql: string; params: unknown[] }): Promise<R[]> {
  return (await executor.execute<R>(statement.sql, statement.params, PREPARED)).rows;
}
