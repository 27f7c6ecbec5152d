/**
 * Creates the outbox table of one PostgreSQL database, for the provider's `setupSchema` (when the
 * outbox is on) and `setupOutbox`. Reports whether the table was created or already there.
 */
import type { SchemaReport } from '@protean-ts/core';
import type { SqlExecutor } from '../sql-executor.js';
import { outboxDdl } from './outbox-ddl.sql.js';
import { OUTBOX_POSITIONS_TABLE, OUTBOX_TABLE } from './outbox-table.js';

export async function setupOutboxTable(db: SqlExecutor): Promise<SchemaReport> {
  const table = db.qualify(OUTBOX_TABLE);
  const found = await db.execute<{ present: boolean }>('SELECT to_regclass(?) IS NOT NULL AS present', [table]);
  const existed = found.rows[0]?.present === true;
  // Indexes are created even when the table existed, so an upgrade adds the ones it lacks.
  for (const statement of outboxDdl(table, db.qualify(OUTBOX_POSITIONS_TABLE))) await db.execute(statement);
  return existed ? { created: [], existing: [OUTBOX_TABLE] } : { created: [OUTBOX_TABLE], existing: [] };
}
