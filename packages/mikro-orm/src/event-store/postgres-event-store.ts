/**
 * The PostgreSQL `EventStore`: events live in `protean_events` of the provider's database and are
 * appended inside the caller's transaction (the unit of work's), so they commit with the
 * aggregates and the outbox rows of that unit. Reads run in the given transaction, or on the pool.
 */
import {
  AppendDeadlockError,
  categoryOf,
  EventStore,
  StreamVersionError,
  ALL_STREAMS,
  type AppendResult,
  type CategoryRead,
  type EventStoreSubscriptions,
  type NewEvent,
  type ProviderTransaction,
  type ReaderCursor,
  type SealedSnapshot,
  type Snapshot,
  type StoredEvent,
  type StreamRead,
} from '@protean-ts/core';
import { PREPARED, type SqlDatabase, type SqlExecutor } from '../sql-executor.js';
import { transactionExecutor } from '../transaction-executor.js';
import { appendEventsSql } from './append-events.sql.js';
import { eventStoreTableNames, type EventStoreTableNames } from './event-store-tables.js';
import { PostgresEventStoreSubscriptions } from './postgres-event-store-subscriptions.js';
import { committedEndSql, lastEventSql, readCategoriesSql, readCategorySql, readStreamSql, streamVersionSql, type EventRow } from './read-events.sql.js';
import { latestSnapshotSql, saveSnapshotSql, type SnapshotRow } from './snapshots.sql.js';

/** SQLSTATE of a transaction aborted to break a lock cycle. */
const DEADLOCK_DETECTED = '40P01';

export class PostgresEventStore extends EventStore {
  readonly tables: EventStoreTableNames;

  constructor(private readonly db: SqlDatabase) {
    super();
    this.tables = eventStoreTableNames((table) => db.qualify(table));
  }

  protected createSubscriptions(): EventStoreSubscriptions {
    return new PostgresEventStoreSubscriptions(this.db, this.tables);
  }

  protected async _append(tx: ProviderTransaction, stream: string, events: readonly NewEvent[], expectedVersion: number | undefined): Promise<AppendResult> {
    const sql = this.inTransaction(tx);
    const statement = appendEventsSql(this.tables, stream, categoryOf(stream), events, expectedVersion);
    const [bumped] = (
      await sql.execute<{ version: string }>(statement.sql, statement.params, PREPARED).catch((error: unknown) => {
        // Appends to several streams lock them in the order they are made; PostgreSQL breaks a cycle with another transaction.
        throw (error as { code?: unknown })?.code === DEADLOCK_DETECTED ? new AppendDeadlockError(stream, expectedVersion, error) : error;
      })
    ).rows;
    if (bumped) return { version: Number(bumped.version) };
    // The check failed; this statement sees the version that made it fail (it has committed).
    throw new StreamVersionError(stream, expectedVersion ?? -1, await this._streamVersion(stream, tx));
  }

  protected async _readStream(stream: string, read: StreamRead, tx: ProviderTransaction | undefined): Promise<StoredEvent[]> {
    const statement = readStreamSql(this.tables, stream, read);
    return (await this.executor(tx).execute<EventRow>(statement.sql, statement.params, PREPARED)).rows.map(toStoredEvent);
  }

  protected async _readCategory(category: string, read: CategoryRead): Promise<StoredEvent[]> {
    const statement = readCategorySql(this.tables, category === ALL_STREAMS ? null : category, read);
    return (await this.db.execute<EventRow>(statement.sql, statement.params, PREPARED)).rows.map(toStoredEvent);
  }

  protected async _readCategories(categories: readonly string[], read: CategoryRead): Promise<StoredEvent[]> {
    const statement = readCategoriesSql(this.tables, categories, read);
    return (await this.db.execute<EventRow>(statement.sql, statement.params, PREPARED)).rows.map(toStoredEvent);
  }

  protected async _committedEnd(categories: readonly string[] | null): Promise<ReaderCursor | null> {
    const statement = committedEndSql(this.tables, categories);
    const [row] = (await this.db.execute<{ transaction_id: string; global_position: string }>(statement.sql, statement.params, PREPARED)).rows;
    return row ? { transactionId: Number(row.transaction_id), globalPosition: Number(row.global_position) } : null;
  }

  protected async _streamVersion(stream: string, tx: ProviderTransaction | undefined): Promise<number> {
    const statement = streamVersionSql(this.tables, stream);
    const [row] = (await this.executor(tx).execute<{ version: string }>(statement.sql, statement.params, PREPARED)).rows;
    return row ? Number(row.version) : -1;
  }

  protected async _lastEvent(stream: string, tx: ProviderTransaction | undefined): Promise<StoredEvent | null> {
    const statement = lastEventSql(this.tables, stream);
    const [row] = (await this.executor(tx).execute<EventRow>(statement.sql, statement.params, PREPARED)).rows;
    return row ? toStoredEvent(row) : null;
  }

  protected async _saveSnapshot(snapshot: SealedSnapshot, tx: ProviderTransaction | undefined, replace: boolean): Promise<void> {
    const statement = saveSnapshotSql(this.tables, snapshot, replace);
    await this.executor(tx).execute(statement.sql, statement.params);
  }

  protected async _latestSnapshot(stream: string, tx: ProviderTransaction | undefined): Promise<Snapshot | null> {
    const statement = latestSnapshotSql(this.tables, stream);
    const [row] = (await this.executor(tx).execute<SnapshotRow>(statement.sql, statement.params)).rows;
    return row
      ? {
          streamName: row.stream_name,
          version: Number(row.version),
          type: row.type,
          data: row.data,
          checksum: row.checksum,
          time: new Date(Number(row.time_ms)),
        }
      : null;
  }

  private inTransaction(tx: ProviderTransaction): SqlExecutor {
    return transactionExecutor(tx, this.db.providerName, 'The event store', 'so the events commit with the unit of work');
  }

  private executor(tx: ProviderTransaction | undefined): SqlExecutor {
    return tx ? this.inTransaction(tx) : this.db;
  }
}

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    globalPosition: Number(row.global_position),
    position: Number(row.position),
    time: new Date(Number(row.time_ms)),
    messageId: row.message_id,
    streamName: row.stream_name,
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    transactionId: Number(row.transaction_id),
  };
}
