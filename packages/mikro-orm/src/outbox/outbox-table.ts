/**
 * Names shared by every outbox statement: the table, the NOTIFY channel, and the set of
 * "active" statuses the partial indexes cover. One place, so the DDL and the queries agree.
 */

export const OUTBOX_TABLE = 'protean_outbox';

/** The last sequence given per (target broker, partition key): rows are numbered from it, gapless. */
export const OUTBOX_POSITIONS_TABLE = 'protean_outbox_positions';

/** NOTIFY channel `append` signals on; the payload is the qualified table name. */
export const OUTBOX_CHANNEL = 'protean_outbox';

/**
 * Statuses of rows that still have work to do. The predicate text must match the partial
 * indexes' predicate exactly, or PostgreSQL will not use them.
 */
export const ACTIVE_STATUS_PREDICATE = (alias: string): string => `${alias}.status IN ('pending', 'processing', 'failed')`;

/** A row that may be claimed right now, judged on its own (head-of-key is checked separately). */
export const CLAIMABLE_NOW_PREDICATE = (alias: string): string =>
  `CASE ${alias}.status WHEN 'pending' THEN true` +
  ` WHEN 'failed' THEN ${alias}.next_retry_at <= now()` +
  ` WHEN 'processing' THEN ${alias}.locked_until < now() ELSE false END`;
