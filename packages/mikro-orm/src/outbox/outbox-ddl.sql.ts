/**
 * The DDL of the outbox table and its indexes. Idempotent (IF NOT EXISTS everywhere), so
 * `db setup` and `db setup-outbox` can run any number of times.
 */
import { OUTBOX_TABLE } from './outbox-table.js';

/**
 * Statements creating the table `qualifiedTable` (e.g. `"public"."protean_outbox"`).
 *
 * Indexes, and why each exists:
 * - `_head_idx` (partial, active rows only): drives the claim. The claim walks the distinct
 *   partition keys through it and takes each key's first row, so its cost follows the number of
 *   keys with work, never the number of published rows or the depth of one key's backlog.
 * - `_finished_idx` (partial, published and abandoned rows only): cleanup deletes published rows
 *   oldest first through it, and counts of finished rows read it without touching the heap
 *   (target_broker is included for per-broker counts). Active rows never enter it: a claim writes
 *   no entry here, and no statement about claimed rows can be planned on it (measured: a
 *   full-table (status, published_at) index made `markPublished` walk the dead entries every claim
 *   leaves behind, tripling its time as the table churned).
 * - `_scheduled_idx` (partial, rows waiting for their due time only): `promoteDue` reads the due
 *   ones in due order through it; a scheduled row is in no other active index, so however many
 *   wait, the claim never sees them (see docs/outbox.md, due times).
 * - `_scheduled_key_idx` (partial, the same rows): a completed process manager deletes its pending
 *   timeouts by partition-key prefix (`LIKE 'prefix%'`, which the "C" collation lets use it).
 * - the unique constraint makes a message land at most once per target broker.
 * `partition_key` uses the "C" collation: byte order is cheap to compare and is the order the
 * store's round-robin cursor reproduces in JavaScript. `updated_at` is the time of the last status
 * change; abandoned rows are kept for their retention counted from it.
 *
 * `positionsTable` holds one counter row per (broker, key). Appending locks it until commit, so a
 * key's rows are numbered 1, 2, 3… in commit order with no gap left by a rollback. It is never
 * cleaned up with the rows: a sequence given once is never given again.
 */
export function outboxDdl(qualifiedTable: string, positionsTable: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${positionsTable} (
  target_broker text NOT NULL,
  partition_key text COLLATE "C" NOT NULL,
  last_sequence bigint NOT NULL,
  PRIMARY KEY (target_broker, partition_key)
)`,
    `CREATE TABLE IF NOT EXISTS ${qualifiedTable} (
  id bigserial PRIMARY KEY,
  message_id text NOT NULL,
  stream_name text NOT NULL,
  partition_key text COLLATE "C" NOT NULL,
  sequence bigint NOT NULL,
  message_type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  target_broker text NOT NULL,
  status text NOT NULL DEFAULT 'pending'
    CONSTRAINT ${OUTBOX_TABLE}_status_check
    CHECK (status IN ('pending', 'processing', 'published', 'failed', 'abandoned', 'scheduled')),
  retry_count integer NOT NULL DEFAULT 0,
  max_retries integer NOT NULL,
  next_retry_at timestamptz,
  last_error text,
  locked_by text,
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  priority integer NOT NULL DEFAULT 0,
  correlation_id text,
  causation_id text,
  deliver_at timestamptz,
  CONSTRAINT ${OUTBOX_TABLE}_message_broker_key UNIQUE (message_id, target_broker)
)`,
    `CREATE INDEX IF NOT EXISTS ${OUTBOX_TABLE}_head_idx ON ${qualifiedTable}
  (target_broker, partition_key, sequence, id)
  WHERE status IN ('pending', 'processing', 'failed')`,
    `CREATE INDEX IF NOT EXISTS ${OUTBOX_TABLE}_finished_idx ON ${qualifiedTable}
  (status, published_at) INCLUDE (target_broker)
  WHERE status IN ('published', 'abandoned')`,
    // Due times, added after the first release: existing tables gain the column and the status.
    `ALTER TABLE ${qualifiedTable} ADD COLUMN IF NOT EXISTS deliver_at timestamptz`,
    `DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = '${qualifiedTable.replace(/'/g, "''")}'::regclass
      AND conname = '${OUTBOX_TABLE}_status_check' AND pg_get_constraintdef(oid) NOT LIKE '%scheduled%') THEN
    ALTER TABLE ${qualifiedTable} DROP CONSTRAINT ${OUTBOX_TABLE}_status_check,
      ADD CONSTRAINT ${OUTBOX_TABLE}_status_check
      CHECK (status IN ('pending', 'processing', 'published', 'failed', 'abandoned', 'scheduled'));
  END IF;
END $$`,
    `CREATE INDEX IF NOT EXISTS ${OUTBOX_TABLE}_scheduled_idx ON ${qualifiedTable}
  (target_broker, deliver_at)
  WHERE status = 'scheduled'`,
    `CREATE INDEX IF NOT EXISTS ${OUTBOX_TABLE}_scheduled_key_idx ON ${qualifiedTable}
  (partition_key)
  WHERE status = 'scheduled'`,
  ];
}
