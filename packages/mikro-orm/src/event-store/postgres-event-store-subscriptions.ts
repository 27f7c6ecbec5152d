/**
 * Leases, cursors and dead letters of event-store subscriptions in the event store's PostgreSQL
 * database (`protean_event_store_subscriptions`, `protean_event_store_dead_letters`). Workers
 * coordinate only through these rows: a lease is a row whose owner and expiry one statement
 * checks and sets, so two workers asking at once get one lease between them.
 */
import type { EventStoreDeadLetter, EventStoreSubscriptions, EventStoreSubscriptionState, ReaderCursor } from '@protean-ts/core';
import { PREPARED, type SqlExecutor } from '../sql-executor.js';
import { acquireSql, releaseSql, renewSql, saveCursorSql } from './subscriptions.sql.js';
import type { SubscriptionTableNames } from './subscription-tables.js';

interface DeadLetterRow {
  subscription: string;
  global_position: string;
  stream_name: string;
  position: string;
  message_id: string;
  type: string;
  error: string;
  dead_lettered_ms: string;
}

export class PostgresEventStoreSubscriptions implements EventStoreSubscriptions {
  constructor(
    private readonly db: SqlExecutor,
    private readonly tables: SubscriptionTableNames,
  ) {}

  async acquire(subscription: string, owner: string, leaseMs: number): Promise<ReaderCursor | null> {
    const statement = acquireSql(this.tables, subscription, owner, leaseMs);
    const [row] = (await this.db.execute<{ transaction_id: string; global_position: string }>(statement.sql, statement.params, PREPARED)).rows;
    return row ? { transactionId: Number(row.transaction_id), globalPosition: Number(row.global_position) } : null;
  }

  async renew(subscription: string, owner: string, leaseMs: number): Promise<boolean> {
    const statement = renewSql(this.tables, subscription, owner, leaseMs);
    return (await this.db.execute(statement.sql, statement.params, PREPARED)).rowCount > 0;
  }

  async saveCursor(subscription: string, owner: string, cursor: ReaderCursor): Promise<boolean> {
    const statement = saveCursorSql(this.tables, subscription, owner, cursor);
    return (await this.db.execute(statement.sql, statement.params, PREPARED)).rowCount > 0;
  }

  async release(subscription: string, owner: string): Promise<void> {
    const statement = releaseSql(this.tables, subscription, owner);
    await this.db.execute(statement.sql, statement.params);
  }

  async addDeadLetter(letter: Omit<EventStoreDeadLetter, 'deadLetteredAt'>): Promise<void> {
    await this.db.execute(
      `INSERT INTO ${this.tables.deadLetters} AS d (subscription, global_position, stream_name, position, message_id, type, error)
VALUES (?, ?::bigint, ?, ?::bigint, ?, ?, ?)
ON CONFLICT (subscription, global_position) DO UPDATE SET error = excluded.error, dead_lettered_at = clock_timestamp()`,
      [letter.subscription, letter.globalPosition, letter.streamName, letter.position, letter.messageId, letter.type, letter.error],
    );
  }

  async deadLetters(subscription: string, limit: number): Promise<EventStoreDeadLetter[]> {
    const { rows } = await this.db.execute<DeadLetterRow>(
      `SELECT subscription, global_position::text AS global_position, stream_name, position::text AS position, message_id, type, error,
  floor(extract(epoch FROM dead_lettered_at) * 1000)::text AS dead_lettered_ms
FROM ${this.tables.deadLetters} WHERE subscription = ? ORDER BY dead_lettered_at, global_position LIMIT ?`,
      [subscription, limit],
    );
    return rows.map((row) => ({
      subscription: row.subscription,
      globalPosition: Number(row.global_position),
      streamName: row.stream_name,
      position: Number(row.position),
      messageId: row.message_id,
      type: row.type,
      error: row.error,
      deadLetteredAt: new Date(Number(row.dead_lettered_ms)),
    }));
  }

  async removeDeadLetters(subscription: string, globalPositions: readonly number[]): Promise<number> {
    const result = await this.db.execute(`DELETE FROM ${this.tables.deadLetters} WHERE subscription = ? AND global_position = ANY(?::bigint[])`, [
      subscription,
      globalPositions.map(String),
    ]);
    return result.rowCount;
  }

  async states(): Promise<EventStoreSubscriptionState[]> {
    const { rows } = await this.db.execute<{
      subscription: string;
      owner: string | null;
      lease_ms: string | null;
      transaction_id: string;
      global_position: string;
      dead_letters: string;
    }>(
      `SELECT n.subscription, s.owner, floor(extract(epoch FROM s.lease_expires_at) * 1000)::text AS lease_ms,
  COALESCE(s.cursor_transaction_id, 0)::text AS transaction_id, COALESCE(s.cursor_global_position, 0)::text AS global_position,
  (SELECT count(*) FROM ${this.tables.deadLetters} d WHERE d.subscription = n.subscription)::text AS dead_letters
FROM (SELECT subscription FROM ${this.tables.subscriptions} UNION SELECT DISTINCT subscription FROM ${this.tables.deadLetters}) n
LEFT JOIN ${this.tables.subscriptions} s ON s.subscription = n.subscription
ORDER BY n.subscription`,
    );
    return rows.map((row) => ({
      subscription: row.subscription,
      owner: row.owner,
      leaseExpiresAt: row.lease_ms === null ? null : new Date(Number(row.lease_ms)),
      cursor: { transactionId: Number(row.transaction_id), globalPosition: Number(row.global_position) },
      deadLetters: Number(row.dead_letters),
    }));
  }
}
