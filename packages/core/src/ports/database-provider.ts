/**
 * The port every database adapter implements (memory in core, PostgreSQL in @protean-ts/mikro-orm).
 * The unit of work talks only to this interface: it opens one transaction per provider it touches,
 * lazily, hands that transaction to DAOs and to the outbox store, and commits or rolls back.
 */
import type { DatabaseSettings } from '../config/config-types.js';
import type { AggregateDao, AggregateSchema } from './aggregate-dao.js';
import type { EventStore } from './event-store.js';
import type { InboxStore } from './inbox-store.js';
import type { CommandOutcomeStore } from './command-outcome-store.js';
import type { OutboxStore } from './outbox-store.js';
import type { ProjectionStatusStore } from './projection-status-store.js';
import type { PartitionLeaseStore } from './partition-leases.js';
import type { ProviderTransaction } from './provider-transaction.js';

export type { ProviderTransaction } from './provider-transaction.js';

/**
 * One database transaction that several units of work share, each inside a savepoint of its own
 * (batched handling: many messages, one commit). Savepoints take turns: `savepoint()` resolves
 * once the previous savepoint was released or rolled back, so one unit's statements never
 * interleave with another's.
 */
export interface BatchTransaction {
  readonly providerName: string;
  /**
   * Opens the next savepoint as a transaction of its own: its `commit` releases the savepoint (its
   * after-commit callbacks wait for the batch's commit), its `rollback` undoes only its own work.
   */
  savepoint(): Promise<ProviderTransaction>;
  /** Commits everything released so far; refuses while a savepoint is open. */
  commit(): Promise<void>;
  /** Rolls the whole batch back; idempotent. */
  rollback(): Promise<void>;
}

export interface SchemaReport {
  /** Tables (or collections) created or already present, for the command's progress output. */
  created: string[];
  existing: string[];
}

export interface DatabaseProvider {
  /** The `[databases.<name>]` key. */
  readonly name: string;
  /** The provider kind from domain.toml (`memory`, `postgresql`, …). */
  readonly kind: string;
  /** False when domain.toml says `managed = false`: schema commands skip it. */
  readonly managed: boolean;
  /** The outbox table of this database. */
  readonly outbox: OutboxStore;
  /** The inbox tables of this database (checkpoints of subscriptions whose `[inbox] database` it is). */
  readonly inbox: InboxStore;
  /** The event store kept in this database (appends run in this provider's transactions). */
  readonly eventStore: EventStore;
  /** Outcomes of commands sent with `awaitOutcome` or an `idempotencyKey` (the `default` database's are used). */
  readonly commandOutcomes: CommandOutcomeStore;
  /** Status rows of the projections stored in this database (rebuild marks and their barrier). */
  readonly projections: ProjectionStatusStore;
  /** Who reads which stream partitions (`outbox.partitions` > 1), when this is the `[inbox] database`. */
  readonly partitionLeases: PartitionLeaseStore;

  /**
   * Connects (pools) and checks the database answers; a clear error naming the masked URI when
   * not, with `retryable: true` when the database is merely unreachable for now (see
   * `isRetryableConnectError`).
   */
  connect(): Promise<void>;
  /** Starts a transaction. */
  begin(): Promise<ProviderTransaction>;
  /**
   * Starts a transaction that units of work share through savepoints (see BatchTransaction);
   * absent where the database has no savepoints (memory): those units then commit one by one.
   */
  beginBatch?(): Promise<BatchTransaction>;
  /** A data-access object for one aggregate, working inside `tx` (or auto-commit when absent). */
  dao<T extends object>(schema: AggregateSchema<T>, tx?: ProviderTransaction): AggregateDao<T>;

  /** Creates the tables of the given aggregates (and the outbox, inbox and event store when `outbox` is true); idempotent. */
  setupSchema(schemas: AggregateSchema[], options: { outbox: boolean }): Promise<SchemaReport>;
  /** Creates only the outbox, inbox and event store tables; idempotent. */
  setupOutbox(): Promise<SchemaReport>;
  dropSchema(schemas: AggregateSchema[]): Promise<string[]>;
  truncate(schemas: AggregateSchema[]): Promise<string[]>;

  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export type DatabaseProviderFactory = (name: string, settings: DatabaseSettings) => DatabaseProvider;
