/**
 * The statements of one claim round and of leaving. They run in one transaction that first takes
 * the scope's advisory lock, so members of a scope take turns and never deadlock on lease rows;
 * expiry is judged by `statement_timestamp()`, read after the lock is held.
 */
import type { PartitionLeaseTableNames } from './partition-lease-tables.js';

type Statement = { sql: string; params: unknown[] };

/** First key of the two-key advisory lock: keeps these locks apart from other users' (ASCII "ptpl"). */
const LOCK_CLASS = 0x7074706c;

export function lockScopeSql(scope: string): Statement {
  return { sql: `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(?))`, params: [scope] };
}

export function recordMemberSql(t: PartitionLeaseTableNames, scope: string, member: string, ttlMs: number): Statement {
  return {
    sql: `INSERT INTO ${t.members} (scope, member, expires_at) VALUES (?, ?, statement_timestamp() + ?::double precision * interval '1 millisecond')
ON CONFLICT (scope, member) DO UPDATE SET expires_at = excluded.expires_at`,
    params: [scope, member, ttlMs],
  };
}

export function dropExpiredMembersSql(t: PartitionLeaseTableNames, scope: string): Statement {
  return { sql: `DELETE FROM ${t.members} WHERE scope = ? AND expires_at <= statement_timestamp()`, params: [scope] };
}

/** Releases the member's leases outside `keep` (all of them for an empty list). */
export function releaseSql(t: PartitionLeaseTableNames, scope: string, member: string, keep: readonly number[]): Statement {
  return {
    sql: `UPDATE ${t.leases} SET owner = NULL, expires_at = NULL WHERE scope = ? AND owner = ? AND partition <> ALL (?::integer[])`,
    params: [scope, member, [...keep]],
  };
}

/**
 * Takes the wanted partitions that are new, released, expired or already the member's, and
 * extends them; a partition changing hands (from anyone, or from no one) gets the next epoch.
 */
export function takeSql(t: PartitionLeaseTableNames, scope: string, member: string, wanted: readonly number[], ttlMs: number): Statement {
  return {
    sql: `INSERT INTO ${t.leases} AS l (scope, partition, owner, epoch, expires_at)
SELECT ?, w.partition, ?, 1, statement_timestamp() + ?::double precision * interval '1 millisecond'
FROM (SELECT DISTINCT unnest(?::integer[]) AS partition) w ORDER BY w.partition
ON CONFLICT (scope, partition) DO UPDATE SET
  owner = excluded.owner,
  epoch = CASE WHEN l.owner IS NOT DISTINCT FROM excluded.owner THEN l.epoch ELSE l.epoch + 1 END,
  expires_at = excluded.expires_at
WHERE l.owner IS NULL OR l.owner = excluded.owner OR l.expires_at <= statement_timestamp()`,
    params: [scope, member, ttlMs, [...wanted]],
  };
}

export function membersSql(t: PartitionLeaseTableNames, scope: string): Statement {
  return { sql: `SELECT member FROM ${t.members} WHERE scope = ?`, params: [scope] };
}

export function heldSql(t: PartitionLeaseTableNames, scope: string, member: string): Statement {
  return { sql: `SELECT partition, epoch::text AS epoch FROM ${t.leases} WHERE scope = ? AND owner = ? ORDER BY partition`, params: [scope, member] };
}

export function forgetMemberSql(t: PartitionLeaseTableNames, scope: string, member: string): Statement {
  return { sql: `DELETE FROM ${t.members} WHERE scope = ? AND member = ?`, params: [scope, member] };
}

export function leasesSql(t: PartitionLeaseTableNames, scope: string): Statement {
  return {
    sql: `SELECT partition, owner, epoch::text AS epoch, expires_at FROM ${t.leases} WHERE scope = ? ORDER BY partition`,
    params: [scope],
  };
}
