/**
 * Creates the outbox table (and its per-key sequence counters) of one PostgreSQL database, for the provider's `setupSchema` (when the
 * outbox is on) and `setupOutbox`. Reports whether the table was created or already there.
 */
import type { SchemaReport } from '@protean-ts/core';
import type { SqlExecutor } from '../sql-executor.js';
import { outboxDdl } from './outbox-ddl.sql.js';
import { OUTBOX_POSITIONS_TABLE, OUTBOX_TABLE } from './outbox-table.js';

export async function setupOutboxTable(db: SqlExecutor): Promise<SchemaReport> {
  const report: SchemaReport = { created: [], existing: [] };
  for (const name of [OUTBOX_TABLE, OUTBOX_POSITIONS_TABLE]) {
    const found = await db.execute<{ present: boolean }>('SELECT to_regclass(?) IS NOT NULL AS present', [db.qualify(name)]);
    (found.rows[0]?.present === true ? report.existing : report.created).push(name);
  }
  // Indexes are created even when the table existed, so an upgrade adds the ones it lacks.
  for (const statement of outboxDdl(db.qualify(OUTBOX_TABLE), db.qualify(OUTBOX_POSITIONS_TABLE))) await db.execute(statement);
  return report;
}
