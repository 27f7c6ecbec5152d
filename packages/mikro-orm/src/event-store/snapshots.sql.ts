/** The snapshot statements: one row per stream, replaced only by a snapshot of a later version. */
import type { NewSnapshot } from '@protean-ts/core';
import type { EventStoreTableNames } from './event-store-tables.js';

type Statement = { sql: string; params: unknown[] };

export function saveSnapshotSql(t: EventStoreTableNames, snapshot: NewSnapshot): Statement {
  return {
    sql: `INSERT INTO ${t.snapshots} AS s (stream_name, version, type, data) VALUES (?, ?::bigint, ?, ?::jsonb)
ON CONFLICT (stream_name) DO UPDATE SET version = excluded.version, type = excluded.type, data = excluded.data, time = now()
WHERE s.version < excluded.version`,
    params: [snapshot.streamName, snapshot.version, snapshot.type, JSON.stringify(snapshot.data)],
  };
}

export function latestSnapshotSql(t: EventStoreTableNames, stream: string): Statement {
  return {
    sql: `SELECT stream_name, version::text AS version, type, data, floor(extract(epoch FROM time) * 1000)::text AS time_ms FROM ${t.snapshots} WHERE stream_name = ?`,
    params: [stream],
  };
}
