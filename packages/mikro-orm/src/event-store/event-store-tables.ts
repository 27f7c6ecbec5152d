/**
 * The event store's tables and their DDL, idempotent, created with the outbox and inbox
 * (`db setup`, `db setup-outbox`):
 * - `protean_events`: one row per event. `transaction_id` is the writing transaction's xid8, or
 *   the stream's previous events' when that is greater (see append-events.sql.ts); readers order
 *   by (transaction_id, global_position) and read only rows below the oldest open transaction
 *   (see read-events.sql.ts). The primary key (stream_name, position) keeps streams gapless
 *   and serves stream reads.
 * - `protean_event_streams`: one row per stream holding its version and the transaction id its
 *   last events were stored under. Appends lock it, so the expected-version check and the write
 *   are one atomic step under concurrency.
 * - `protean_snapshots`: the latest snapshot per stream, with its checksum (snapshot-checksum.ts in core).
 * - the leases, cursors and dead letters of event-store subscriptions (subscription-tables.ts).
 */
import { DEAD_LETTERS_TABLE, subscriptionDdl, SUBSCRIPTIONS_TABLE } from './subscription-tables.js';

export const EVENTS_TABLE = 'protean_events';
export const EVENT_STREAMS_TABLE = 'protean_event_streams';
export const SNAPSHOTS_TABLE = 'protean_snapshots';
export const EVENT_STORE_TABLES = [EVENTS_TABLE, EVENT_STREAMS_TABLE, SNAPSHOTS_TABLE, SUBSCRIPTIONS_TABLE, DEAD_LETTERS_TABLE] as const;

export interface EventStoreTableNames {
  events: string;
  streams: string;
  snapshots: string;
  subscriptions: string;
  deadLetters: string;
}

/** The store's table names qualified by `qualify` (the provider's PostgreSQL schema). */
export function eventStoreTableNames(qualify: (table: string) => string): EventStoreTableNames {
  return {
    events: qualify(EVENTS_TABLE),
    streams: qualify(EVENT_STREAMS_TABLE),
    snapshots: qualify(SNAPSHOTS_TABLE),
    subscriptions: qualify(SUBSCRIPTIONS_TABLE),
    deadLetters: qualify(DEAD_LETTERS_TABLE),
  };
}

export function eventStoreDdl(t: EventStoreTableNames): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.events} (
  global_position bigint GENERATED ALWAYS AS IDENTITY,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_name text COLLATE "C" NOT NULL,
  category text COLLATE "C" NOT NULL,
  position bigint NOT NULL,
  message_id text NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  time timestamptz NOT NULL,
  PRIMARY KEY (stream_name, position)
)`,
    // Reader order for $all, and per category.
    `CREATE INDEX IF NOT EXISTS ${EVENTS_TABLE}_reader_idx ON ${t.events} (transaction_id, global_position)`,
    `CREATE INDEX IF NOT EXISTS ${EVENTS_TABLE}_category_idx ON ${t.events} (category, transaction_id, global_position)`,
    `CREATE TABLE IF NOT EXISTS ${t.streams} (
  stream_name text COLLATE "C" PRIMARY KEY,
  version bigint NOT NULL,
  reader_transaction_id xid8 NOT NULL DEFAULT '0'
)`,
    // Databases set up before the column existed: their streams start from 0, i.e. the appender's own id.
    `ALTER TABLE ${t.streams} ADD COLUMN IF NOT EXISTS reader_transaction_id xid8 NOT NULL DEFAULT '0'`,
    `CREATE TABLE IF NOT EXISTS ${t.snapshots} (
  stream_name text COLLATE "C" PRIMARY KEY,
  version bigint NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  checksum text,
  time timestamptz NOT NULL DEFAULT now()
)`,
    // Databases set up before snapshots carried a checksum: their rows keep null, which loads ignore.
    `ALTER TABLE ${t.snapshots} ADD COLUMN IF NOT EXISTS checksum text`,
    ...subscriptionDdl(t),
  ];
}
