/**
 * `provider = "postgresql"`: the DatabaseProvider for PostgreSQL, built on MikroORM. It owns the
 * connection pool, hands out transactions and DAOs, creates and drops the tables of the
 * aggregates it stores, and is the pool-level `SqlDatabase` (execute, LISTEN) the outbox uses.
 */
import { TransactionStateError, fieldsOf } from '@protean-ts/core';
import type {
  AggregateDao,
  AggregateSchema,
  DatabaseProvider,
  DatabaseSettings,
  EventStore,
  InboxStore,
  OutboxStore,
  PartitionLeaseStore,
  ProviderTransaction,
  SchemaReport,
} from '@protean-ts/core';
import { ConnectionPool } from './connection/connection-pool.js';
import { NotificationHub } from './connection/notification-hub.js';
import { StatementRunner } from './connection/statement-runner.js';
import { AggregateMapping } from './dao/aggregate-mapping.js';
import { AutoCommitAggregateDao } from './dao/auto-commit-dao.js';
import { PostgresAggregateDao } from './dao/postgres-aggregate-dao.js';
import { EVENT_STORE_TABLES, eventStoreDdl, eventStoreTableNames, PostgresEventStore } from './event-store/index.js';
import { MappingError } from './mapping.error.js';
import { COMMAND_OUTCOMES_TABLE, commandOutcomesDdl, PostgresCommandOutcomeStore } from './command-outcomes/index.js';
import { inboxDdl, INBOX_CHECKPOINTS_TABLE, INBOX_MESSAGES_TABLE, INBOX_PASSED_TABLE, INBOX_TABLES, PostgresInboxStore } from './inbox/index.js';
import { OUTBOX_POSITIONS_TABLE, OUTBOX_TABLE, PostgresOutboxStore, setupOutboxTable } from './outbox/index.js';
import { partitionLeaseDdl, partitionLeaseTableNames, PARTITION_LEASE_TABLES, PostgresPartitionLeases } from './partitions/index.js';
import { PostgresProjectionStatus, PROJECTIONS_TABLE, projectionsDdl } from './projections/postgres-projection-status.js';
import { BatchPermits } from './batch/batch-permits.js';
import { PostgresBatchTransaction } from './batch/postgres-batch-transaction.js';
import { PostgresTransaction } from './postgres-transaction.js';
import { readPostgresSettings, type PostgresSettings } from './postgres-settings.js';
import { qualifiedName } from './schema/column-naming.js';
import { buildEntitySchemas } from './schema/entity-schema-builder.js';
import { SchemaManager } from './schema/schema-manager.js';
import { buildTableModel } from './schema/table-model-builder.js';
import { tablesOf } from './schema/table-model.js';
import type { ExecuteOptions, NotificationListener, SqlDatabase, SqlResult, SqlTransaction } from './sql-executor.js';
import { isPostgresUnitTransaction, type PostgresUnitTransaction } from './sql-transaction-of.js';

export class PostgresProvider implements DatabaseProvider, SqlDatabase {
  readonly kind = 'postgresql';
  readonly managed: boolean;
  readonly settings: PostgresSettings;
  private pool: ConnectionPool | undefined;
  private opening: Promise<ConnectionPool> | undefined;
  private notifications: NotificationHub | undefined;
  private readonly runner: StatementRunner;
  private readonly mappings = new Map<AggregateSchema, AggregateMapping>();
  /** Table name → the element that owns it, across every aggregate of this provider. */
  private readonly tableOwners = new Map<string, string>();
  private outboxStore: PostgresOutboxStore | undefined;
  private inboxStore: PostgresInboxStore | undefined;
  private outcomeStore: PostgresCommandOutcomeStore | undefined;
  private partitionLeaseStore: PostgresPartitionLeases | undefined;
  private events: PostgresEventStore | undefined;
  /** Set by close(): nothing reopens the pool behind the caller's back until connect(). */
  private closed = false;

  constructor(
    readonly name: string,
    settings: DatabaseSettings,
  ) {
    this.settings = readPostgresSettings(name, settings);
    this.managed = this.settings.managed;
    this.runner = new StatementRunner(name, this.settings.debug);
  }

  get providerName(): string {
    return this.name;
  }

  get schemaName(): string {
    return this.settings.schema;
  }

  /** The `protean_outbox` table of this database. */
  get outbox(): OutboxStore {
    this.outboxStore ??= new PostgresOutboxStore(this);
    return this.outboxStore;
  }

  private projectionStatus: PostgresProjectionStatus | undefined;

  /** The `protean_projections` table of this database. */
  get projections(): PostgresProjectionStatus {
    this.projectionStatus ??= new PostgresProjectionStatus(this, (schema) => tablesOf(this.mappingFor(schema).model).map((t) => t.tableName));
    return this.projectionStatus;
  }

  /** The `protean_inbox_*` tables of this database. */
  get inbox(): InboxStore {
    this.inboxStore ??= new PostgresInboxStore(this);
    return this.inboxStore;
  }

  /** The `protean_partition_*` tables of this database. */
  get partitionLeases(): PartitionLeaseStore {
    this.partitionLeaseStore ??= new PostgresPartitionLeases(this, this);
    return this.partitionLeaseStore;
  }

  /** The `protean_command_outcomes` table of this database. */
  get commandOutcomes(): PostgresCommandOutcomeStore {
    this.outcomeStore ??= new PostgresCommandOutcomeStore(this);
    return this.outcomeStore;
  }

  /** The `protean_events` (and streams, snapshots) tables of this database. */
  get eventStore(): EventStore {
    this.events ??= new PostgresEventStore(this);
    return this.events;
  }

  /** Opens the pool and checks the database answers; a `DatabaseConnectionError` when it does not. */
  async connect(): Promise<void> {
    this.closed = false;
    await this.connection();
  }

  private batchPermits: BatchPermits | undefined;

  async begin(): Promise<PostgresTransaction> {
    const pool = await this.connection();
    return PostgresTransaction.begin(this.name, this.settings.schema, pool, this.runner);
  }

  /**
   * One transaction for several units of work, each in a savepoint of its own (batched
   * subscriptions). At most half the pool is held by batches at once (BatchPermits): past that,
   * it waits for a batch to end, holding no connection meanwhile.
   */
  async beginBatch(): Promise<PostgresBatchTransaction> {
    const pool = await this.connection();
    this.batchPermits ??= BatchPermits.forPool(this.settings.poolSize);
    const permits = this.batchPermits;
    await permits.acquire();
    try {
      return await PostgresBatchTransaction.begin(this.name, this.settings.schema, pool, this.runner, () => permits.release());
    } catch (error) {
      permits.release();
      throw error;
    }
  }

  dao<T extends object>(schema: AggregateSchema<T>, tx?: ProviderTransaction): AggregateDao<T> {
    const mapping = this.mappingFor(schema);
    if (tx) return new PostgresAggregateDao(mapping, this.own(tx));
    return new AutoCommitAggregateDao(mapping, this, this);
  }

  /** Runs `work` in a transaction of its own, committed when it resolves, rolled back when it throws. */
  async inTransaction<R>(work: (tx: SqlTransaction) => Promise<R>): Promise<R> {
    const tx = await this.begin();
    try {
      const result = await work(tx);
      await tx.commit();
      return result;
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }

  async execute<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: ExecuteOptions): Promise<SqlResult<R>> {
    const pool = await this.connection();
    const connection = await pool.acquire();
    try {
      return await this.runner.run<R>(connection, sql, params, options);
    } finally {
      await pool.release(connection);
    }
  }

  qualify(table: string): string {
    return qualifiedName(this.settings.schema, table);
  }

  async listen(channel: string, listener: NotificationListener): Promise<() => Promise<void>> {
    await this.connection();
    this.notifications ??= new NotificationHub(this.settings.uri, this.name);
    return this.notifications.listen(channel, listener);
  }

  async setupSchema(schemas: AggregateSchema[], options: { outbox: boolean }): Promise<SchemaReport> {
    const entities = (await Promise.all(schemas.map((schema) => buildEntitySchemas(this.mappingFor(schema).model, this.settings.schema)))).flat();
    const report = await this.schemaManager().setup(entities);
    if (!options.outbox) return report;
    const outbox = await this.setupOutbox();
    return { created: [...report.created, ...outbox.created], existing: [...report.existing, ...outbox.existing] };
  }

  /** The outbox, inbox, projection status, partition lease and event store tables: what the server's relay and subscriptions need. */
  async setupOutbox(): Promise<SchemaReport> {
    await this.schemaManager().ensureNamespace();
    const report = await setupOutboxTable(this);
    const existing = new Set<string>();
    for (const table of INBOX_TABLES) {
      const found = await this.execute<{ present: boolean }>('SELECT to_regclass(?) IS NOT NULL AS present', [this.qualify(table)]);
      if (found.rows[0]?.present === true) existing.add(table);
    }
    const tables = {
      checkpoints: this.qualify(INBOX_CHECKPOINTS_TABLE),
      passed: this.qualify(INBOX_PASSED_TABLE),
      messages: this.qualify(INBOX_MESSAGES_TABLE),
    };
    for (const statement of inboxDdl(tables)) await this.execute(statement);
    for (const table of INBOX_TABLES) (existing.has(table) ? report.existing : report.created).push(table);
    const outcomes = await this.execute<{ present: boolean }>('SELECT to_regclass(?) IS NOT NULL AS present', [this.qualify(COMMAND_OUTCOMES_TABLE)]);
    for (const statement of commandOutcomesDdl(this.qualify(COMMAND_OUTCOMES_TABLE))) await this.execute(statement);
    (outcomes.rows[0]?.present === true ? report.existing : report.created).push(COMMAND_OUTCOMES_TABLE);
    const projections = await this.execute<{ present: boolean }>('SELECT to_regclass(?) IS NOT NULL AS present', [this.qualify(PROJECTIONS_TABLE)]);
    await this.execute(projectionsDdl(this.qualify(PROJECTIONS_TABLE)));
    (projections.rows[0]?.present === true ? report.existing : report.created).push(PROJECTIONS_TABLE);
    const partitions: string[] = [];
    for (const table of PARTITION_LEASE_TABLES) {
      const found = await this.execute<{ present: boolean }>('SELECT to_regclass(?) IS NOT NULL AS present', [this.qualify(table)]);
      if (found.rows[0]?.present === true) partitions.push(table);
    }
    for (const statement of partitionLeaseDdl(partitionLeaseTableNames((table) => this.qualify(table)))) await this.execute(statement);
    for (const table of PARTITION_LEASE_TABLES) (partitions.includes(table) ? report.existing : report.created).push(table);
    const events = await this.setupEventStore();
    return { created: [...report.created, ...events.created], existing: [...report.existing, ...events.existing] };
  }

  /** The event store tables (events, streams, snapshots, subscription leases and dead letters); idempotent. */
  async setupEventStore(): Promise<SchemaReport> {
    await this.schemaManager().ensureNamespace();
    const report: SchemaReport = { created: [], existing: [] };
    for (const table of EVENT_STORE_TABLES) {
      const found = await this.execute<{ present: boolean }>('SELECT to_regclass(?) IS NOT NULL AS present', [this.qualify(table)]);
      (found.rows[0]?.present === true ? report.existing : report.created).push(table);
    }
    for (const statement of eventStoreDdl(eventStoreTableNames((table) => this.qualify(table)))) await this.execute(statement);
    return report;
  }

  /** Drops the tables of these aggregates and the outbox, inbox and event store tables. */
  async dropSchema(schemas: AggregateSchema[]): Promise<string[]> {
    return this.schemaManager().drop(this.tablesOf(schemas));
  }

  /** Deletes every row of these aggregates' tables and of the outbox, inbox and event store tables. */
  async truncate(schemas: AggregateSchema[]): Promise<string[]> {
    return this.schemaManager().truncate(this.tablesOf(schemas));
  }

  async ping(): Promise<boolean> {
    try {
      await this.execute('select 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool ?? (await this.opening?.catch(() => undefined));
    this.pool = undefined;
    this.opening = undefined;
    await this.notifications?.close();
    this.notifications = undefined;
    await pool?.close();
  }

  /** The table model, SQL and mappers of one aggregate, built on first use. */
  mappingFor<T extends object>(schema: AggregateSchema<T>): AggregateMapping<T> {
    let mapping = this.mappings.get(schema) as AggregateMapping<T> | undefined;
    if (!mapping) {
      const model = buildTableModel(schema, fieldsOf);
      const tables = tablesOf(model);
      for (const table of tables) {
        const owner = this.tableOwners.get(table.tableName);
        if (owner && owner !== table.name) {
          throw new MappingError(
            `${table.name} and ${owner} both map to table '${table.tableName}' in database "${this.name}"; give one a different schemaName.`,
          );
        }
      }
      for (const table of tables) this.tableOwners.set(table.tableName, table.name);
      mapping = new AggregateMapping(schema, model, this.settings.schema);
      this.mappings.set(schema, mapping as AggregateMapping);
    }
    return mapping;
  }

  private tablesOf(schemas: AggregateSchema[]): string[] {
    return [
      ...schemas.flatMap((schema) => tablesOf(this.mappingFor(schema).model).map((t) => t.tableName)),
      OUTBOX_TABLE,
      OUTBOX_POSITIONS_TABLE,
      ...INBOX_TABLES,
      COMMAND_OUTCOMES_TABLE,
      PROJECTIONS_TABLE,
      ...PARTITION_LEASE_TABLES,
      ...EVENT_STORE_TABLES,
    ];
  }

  private schemaManager(): SchemaManager {
    return new SchemaManager(this.settings, this);
  }

  private connection(): Promise<ConnectionPool> {
    if (this.pool) return Promise.resolve(this.pool);
    if (this.closed) {
      return Promise.reject(new TransactionStateError(`PostgreSQL database "${this.name}" is closed; call connect() (domain.init()) first`));
    }
    this.opening ??= ConnectionPool.open(this.settings).then(
      (pool) => {
        this.pool = pool;
        return pool;
      },
      (error: unknown) => {
        this.opening = undefined;
        throw error;
      },
    );
    return this.opening;
  }

  private own(tx: ProviderTransaction): PostgresUnitTransaction {
    if (!isPostgresUnitTransaction(tx) || tx.providerName !== this.name) {
      throw new TransactionStateError(
        `PostgreSQL database "${this.name}" was given a transaction of "${tx?.providerName ?? 'unknown'}"; use a transaction opened by this provider`,
      );
    }
    return tx;
  }
}
