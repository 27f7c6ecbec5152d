/**
 * The snapshot statements: one row per stream, replaced by a snapshot of a later version, or by
 * any when `replace` (a repository replacing a snapshot it found bad). `checksum` is null in rows
 * written before snapshots carried one.
 */
import type { SealedSnapshot } from '@protean-ts/core';
import type { EventStoreTableNames } from './event-store-tables.js';

type Statement = { sql: string; params: unknown[] };

export function saveSnapshotSql(t: EventStoreTableNames, snapshot: SealedSnapshot, replace: boolean): Statement {
  return {
    sql: `INSERT INTO ${t.snapshots} AS s (stream_name, version, type, data, checksum) VALUES (?, ?::bigint, ?, ?::jsonb, ?)
ON CONFLICT (stream_name) DO UPDATE SET version = excluded.version, type = excluded.type, data = excluded.data, checksum = excluded.checksum, time = now()
WHERE s.version < excluded.version OR ?::boolean`,
    params: [snapshot.streamName, snapshot.version, snapshot.type, JSON.stringify(snapshot.data), snapshot.checksum, replace],
  };
}

export interface SnapshotRow {
  stream_name: string;
  version: string;
  type: string;
  data: Record<string, unknown>;
  checksum: string | null;
  time_ms: string;
}

export function latestSnapshotSql(t: EventStoreTableNames, stream: string): Statement {
  return {
    sql: `SELECT stream_name, version::text AS version, type, data, checksum, floor(extract(epoch FROM time) * 1000)::text AS time_ms FROM ${t.snapshots} WHERE stream_name = ?`,
    params: [stream],
  };
}
