/**
 * `provider = "memory"`: the embedded database provider. It implements the whole
 * `DatabaseProvider` port in process memory (staged transactions, optimistic versions, unique
 * fields, an outbox with the PostgreSQL semantics), so a domain runs and is tested end to end
 * without any server. Data lives as long as the provider object.
 */
import { TransactionStateError } from '../../errors/transaction-state.error.js';
import type { AggregateDao, AggregateSchema } from '../../ports/aggregate-dao.js';
import type { DatabaseSettings } from '../../config/config-types.js';
import type { DatabaseProvider, ProviderTransaction, SchemaReport } from '../../ports/database-provider.js';
import { MemoryAggregateDao } from './memory-aggregate-dao.js';
import { MemoryEventStore } from './memory-event-store.js';
import { MemoryInboxStore } from './memory-inbox-store.js';
import { MemoryPartitionLeases } from './memory-partition-leases.js';
import { MemoryCommandOutcomeStore } from './memory-command-outcome-store.js';
import { MemoryOutboxStore } from './memory-outbox-store.js';
import { MemoryProjectionStatus } from './memory-projection-status.js';
import { MemoryTables } from './memory-tables.js';
import { MemoryTransaction } from './memory-transaction.js';

export const MEMORY_OUTBOX_TABLE = 'outbox';

export class MemoryProvider implements DatabaseProvider {
  readonly kind = 'memory';
  readonly managed: boolean;
  readonly outbox: MemoryOutboxStore;
  readonly inbox: MemoryInboxStore;
  readonly eventStore: MemoryEventStore;
  readonly commandOutcomes: MemoryCommandOutcomeStore;
  readonly partitionLeases = new MemoryPartitionLeases();
  private readonly tables = new MemoryTables();
  readonly projections = new MemoryProjectionStatus((schema) => {
    for (const table of tableNames(schema)) this.tables.clear(table);
  });
  private closed = false;

  constructor(
    readonly name: string,
    settings: Partial<DatabaseSettings> = {},
  ) {
    this.managed = settings.managed ?? true;
    this.outbox = new MemoryOutboxStore(name);
    this.inbox = new MemoryInboxStore(name);
    this.eventStore = new MemoryEventStore(name);
    this.commandOutcomes = new MemoryCommandOutcomeStore(name);
  }

  async connect(): Promise<void> {
    this.closed = false;
  }

  async begin(): Promise<ProviderTransaction> {
    this.assertOpen('begin a transaction');
    return new MemoryTransaction(this.name, (tx) => this.applyCommit(tx));
  }

  dao<T extends object>(schema: AggregateSchema<T>, tx?: ProviderTransaction): AggregateDao<T> {
    if (tx) return new MemoryAggregateDao(schema, this.tables, this.own(tx));
    return this.autoCommitDao(schema);
  }

  async setupSchema(schemas: AggregateSchema[], options: { outbox: boolean }): Promise<SchemaReport> {
    const report: SchemaReport = { created: [], existing: [] };
    for (const schema of schemas) {
      for (const table of tableNames(schema)) {
        (this.tables.has(table) ? report.existing : report.created).push(table);
        this.tables.table(table);
      }
    }
    if (options.outbox) mergeReport(report, await this.setupOutbox());
    return report;
  }

  async setupOutbox(): Promise<SchemaReport> {
    const existed = this.tables.has(MEMORY_OUTBOX_TABLE);
    this.tables.table(MEMORY_OUTBOX_TABLE);
    return existed ? { created: [], existing: [MEMORY_OUTBOX_TABLE] } : { created: [MEMORY_OUTBOX_TABLE], existing: [] };
  }

  async dropSchema(schemas: AggregateSchema[]): Promise<string[]> {
    return schemas.flatMap((schema) => tableNames(schema).filter((table) => this.tables.drop(table)));
  }

  async truncate(schemas: AggregateSchema[]): Promise<string[]> {
    const names = schemas.flatMap((schema) => tableNames(schema));
    for (const table of names) this.tables.clear(table);
    this.eventStore.clear();
    this.projections.clear();
    return names;
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private applyCommit(tx: MemoryTransaction): void {
    // Inbox moves and stream versions are checked before anything is applied, so a conflict leaves nothing behind.
    for (const write of tx.inboxWrites) write.check();
    this.eventStore.checkCommit(tx);
    this.tables.applyWrites(tx.writes);
    for (const write of tx.inboxWrites) write.apply();
    this.eventStore.applyCommit(tx);
    this.outbox.insertCommitted(tx.outboxRows);
    this.outbox.cancelCommitted(tx.outboxCancels);
    for (const write of tx.outcomeWrites) write();
  }

  private own(tx: ProviderTransaction): MemoryTransaction {
    if (!(tx instanceof MemoryTransaction) || tx.providerName !== this.name) {
      throw new TransactionStateError(
        `Memory database "${this.name}" was given a transaction of "${tx?.providerName ?? 'unknown'}"; use a transaction opened by this provider`,
      );
    }
    return tx;
  }

  // Outside a unit of work each call is its own transaction, like auto-commit in SQL.
  private autoCommitDao<T extends object>(schema: AggregateSchema<T>): AggregateDao<T> {
    const run = async <R>(work: (dao: AggregateDao<T>) => Promise<R>): Promise<R> => {
      const tx = (await this.begin()) as MemoryTransaction;
      try {
        const result = await work(new MemoryAggregateDao(schema, this.tables, tx));
        await tx.commit();
        return result;
      } catch (error) {
        await tx.rollback();
        throw error;
      }
    };
    return {
      get: (id) => run((dao) => dao.get(id)),
      save: (aggregate, expectedVersion) => run((dao) => dao.save(aggregate, expectedVersion)),
      query: (spec) => run((dao) => dao.query(spec)),
      count: (filter) => run((dao) => dao.count(filter)),
      delete: (id) => run((dao) => dao.delete(id)),
    };
  }

  private assertOpen(operation: string): void {
    if (this.closed) throw new TransactionStateError(`Cannot ${operation}: memory database "${this.name}" is closed; call connect() first`);
  }
}

function tableNames(schema: AggregateSchema): string[] {
  // Children are stored inside their aggregate here, but SQL providers report their tables too.
  return [schema.tableName, ...schema.entities.map((entity) => entity.tableName)];
}

function mergeReport(into: SchemaReport, from: SchemaReport): void {
  into.created.push(...from.created);
  into.existing.push(...from.existing);
}
