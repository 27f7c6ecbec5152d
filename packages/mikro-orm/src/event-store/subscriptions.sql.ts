/**
 * The statements of event-store subscription leases and cursors. Each is one auto-commit
 * statement, and expiry compares with the database's `clock_timestamp()`, so the lease holds
 * whatever the workers' clocks say.
 */
import type { ReaderCursor } from '@protean-ts/core';
import type { SubscriptionTableNames } from './subscription-tables.js';

type Statement = { sql: string; params: unknown[] };

/** Takes the lease when free, expired or ours; RETURNING gives the cursor only then. */
export function acquireSql(t: SubscriptionTableNames, subscription: string, owner: string, leaseMs: number): Statement {
  return {
    sql: `INSERT INTO ${t.subscriptions} AS s (subscription, owner, lease_expires_at)
VALUES (?, ?, clock_timestamp() + ?::bigint * interval '1 millisecond')
ON CONFLICT (subscription) DO UPDATE SET owner = excluded.owner, lease_expires_at = excluded.lease_expires_at, updated_at = now()
WHERE s.owner IS NULL OR s.owner = excluded.owner OR s.lease_expires_at < clock_timestamp()
RETURNING cursor_transaction_id::text AS transaction_id, cursor_global_position::text AS global_position`,
    params: [subscription, owner, leaseMs],
  };
}

export function renewSql(t: SubscriptionTableNames, subscription: string, owner: string, leaseMs: number): Statement {
  return {
    sql: `UPDATE ${t.subscriptions} SET lease_expires_at = clock_timestamp() + ?::bigint * interval '1 millisecond', updated_at = now()
WHERE subscription = ? AND owner = ?`,
    params: [leaseMs, subscription, owner],
  };
}

/** Forward only: a late save of an older cursor leaves a newer one alone (and still reports the lease held). */
export function saveCursorSql(t: SubscriptionTableNames, subscription: string, owner: string, cursor: ReaderCursor): Statement {
  return {
    sql: `UPDATE ${t.subscriptions} SET
  cursor_transaction_id = CASE WHEN (cursor_transaction_id, cursor_global_position) < (?::bigint, ?::bigint) THEN ?::bigint ELSE cursor_transaction_id END,
  cursor_global_position = CASE WHEN (cursor_transaction_id, cursor_global_position) < (?::bigint, ?::bigint) THEN ?::bigint ELSE cursor_global_position END,
  updated_at = now()
WHERE subscription = ? AND owner = ?`,
    params: [
      cursor.transactionId,
      cursor.globalPosition,
      cursor.transactionId,
      cursor.transactionId,
      cursor.globalPosition,
      cursor.globalPosition,
      subscription,
      owner,
    ],
  };
}

export function releaseSql(t: SubscriptionTableNames, subscription: string, owner: string): Statement {
  return {
    sql: `UPDATE ${t.subscriptions} SET owner = NULL, lease_expires_at = NULL, updated_at = now() WHERE subscription = ? AND owner = ?`,
    params: [subscription, owner],
  };
}
