/**
 * One statement appends a batch of events to one stream and checks the expected version inside
 * it. The stream's row in `protean_event_streams` is bumped first (and stays locked until
 * commit), so a concurrent writer of the same stream waits and then re-checks against the
 * committed version: exactly one of two writers expecting the same version gets a row back.
 * No row back means the expected version did not hold: the store reads the actual one and raises.
 *
 * Each event's `transaction_id` (its reader order, see read-events.sql.ts) is the greater of this
 * transaction's id and the one the stream's previous events were stored under, kept on the stream
 * row. A transaction with an older id can continue a stream after a younger one committed events
 * to it (it waited for that commit on the stream row); with its own id its events would sort
 * before the earlier positions and a category reader would get the stream out of order. The
 * stream row's value is read after the lock wait (the UPDATE and ON CONFLICT re-read the
 * committed row), so it is the last committer's.
 *
 * Event times are taken after the lock (clock_timestamp, to the millisecond JS dates carry), so
 * they follow stream order and as-of reads cut a stream at a consistent point.
 */
import type { NewEvent } from '@protean-ts/core';
import type { EventStoreTableNames } from './event-store-tables.js';

type Statement = { sql: string; params: unknown[] };

/** How the stream row is bumped: each mode has its own text, built once per table. */
type Mode = 'new' | 'exact' | 'any';
const texts = new Map<string, string>();

export function appendEventsSql(
  t: EventStoreTableNames,
  stream: string,
  category: string,
  events: readonly NewEvent[],
  expectedVersion: number | undefined,
): Statement {
  // The events travel as one jsonb document: one parameter whatever the batch size.
  const payload = JSON.stringify(events.map((e) => ({ message_id: e.messageId, type: e.type, data: e.data, metadata: e.metadata ?? {} })));
  const mode: Mode = expectedVersion === undefined ? 'any' : expectedVersion === -1 ? 'new' : 'exact';
  const key = `${mode} ${t.events} ${t.streams}`;
  let sql = texts.get(key);
  if (sql === undefined) {
    sql = appendText(t, mode);
    texts.set(key, sql);
  }
  const n = events.length;
  const bumpParams = mode === 'exact' ? [n, stream, expectedVersion] : [stream, n];
  return { sql, params: [payload, ...bumpParams, n, stream, category] };
}

function bumpText(t: EventStoreTableNames, mode: Mode): string {
  switch (mode) {
    case 'exact':
      return `UPDATE ${t.streams} SET version = version + ?::bigint, reader_transaction_id = greatest(reader_transaction_id, pg_current_xact_id())
  WHERE stream_name = ? AND version = ?::bigint RETURNING version, reader_transaction_id`;
    case 'new':
      return `INSERT INTO ${t.streams} (stream_name, version, reader_transaction_id) VALUES (?, ?::bigint - 1, pg_current_xact_id())
  ON CONFLICT (stream_name) DO NOTHING RETURNING version, reader_transaction_id`;
    case 'any':
      return `INSERT INTO ${t.streams} AS s (stream_name, version, reader_transaction_id) VALUES (?, ?::bigint - 1, pg_current_xact_id())
  ON CONFLICT (stream_name) DO UPDATE SET version = s.version + excluded.version + 1,
    reader_transaction_id = greatest(s.reader_transaction_id, excluded.reader_transaction_id)
  RETURNING s.version, s.reader_transaction_id`;
  }
}

/** Parameters: the events as jsonb, the bump's (see appendEventsSql), the batch size, stream, category. */
function appendText(t: EventStoreTableNames, mode: Mode): string {
  return `WITH input AS MATERIALIZED (
  SELECT * FROM ROWS FROM (jsonb_to_recordset(?::jsonb) AS (message_id text, type text, data jsonb, metadata jsonb))
    WITH ORDINALITY AS i(message_id, type, data, metadata, ord)
),
bumped AS (
  ${bumpText(t, mode)}
),
stored AS (
  INSERT INTO ${t.events} (transaction_id, stream_name, category, position, message_id, type, data, metadata, time)
  SELECT b.reader_transaction_id, s.stream_name, s.category, b.version - s.n + i.ord, i.message_id, i.type, i.data, i.metadata,
    date_trunc('milliseconds', clock_timestamp())
  FROM bumped b CROSS JOIN (SELECT ?::bigint AS n, ?::text AS stream_name, ?::text AS category) s CROSS JOIN input i
  ORDER BY i.ord
)
SELECT version::text AS version FROM bumped`;
}
