/**
 * `protean_projections` on PostgreSQL: one row per projection. Projector transactions hold it
 * `FOR SHARE`; `markRebuilding` updates it, so it waits for them and every later projector
 * transaction reads the mark (see ports/projection-status-store.ts).
 */
import type { AggregateSchema, ProjectionState, ProjectionStatusStore, ProviderTransaction, ReaderCursor } from '@protean-ts/core';
import { PREPARED, type SqlDatabase } from '../sql-executor.js';
import { transactionExecutor } from '../transaction-executor.js';
import { PostgresSavepoint } from '../batch/postgres-savepoint.js';

export const PROJECTIONS_TABLE = 'protean_projections';

export function projectionsDdl(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
  projection text PRIMARY KEY,
  rebuilding boolean NOT NULL DEFAULT false,
  rebuild_started_at timestamptz,
  rebuilt_at timestamptz,
  events_applied bigint,
  rebuilt_through_transaction bigint,
  rebuilt_through_position bigint
)`;
}

interface Row {
  projection: string;
  rebuilding: boolean;
  rebuild_started_at: Date | string | null;
  rebuilt_at: Date | string | null;
  events_applied: string | null;
  rebuilt_through_transaction: string | null;
  rebuilt_through_position: string | null;
}

export class PostgresProjectionStatus implements ProjectionStatusStore {
  private readonly table: string;

  constructor(
    private readonly db: SqlDatabase,
    private readonly tablesOf: (schema: AggregateSchema) => string[],
  ) {
    this.table = db.qualify(PROJECTIONS_TABLE);
  }

  async holdForProjector(tx: ProviderTransaction, projection: string): Promise<boolean> {
    // In a batch, a released savepoint's hold lasts until the batch ends: once per batch is enough.
    const held = `projection held: ${projection}`;
    if (tx instanceof PostgresSavepoint && tx.knowsForBatch(held)) return false;
    const sql = transactionExecutor(tx, this.db.providerName, 'The projection status', 'so a rebuild waits for the projector');
    return this.explainMissingTable(async () => {
      // Runs once per projector message: the row exists after a projection's first message, so
      // the lock is one prepared statement; only a missing row costs the INSERT and a second read.
      const hold = () => sql.execute<{ rebuilding: boolean }>(`SELECT rebuilding FROM ${this.table} WHERE projection = ? FOR SHARE`, [projection], PREPARED);
      let { rows } = await hold();
      if (rows.length === 0) {
        await sql.execute(`INSERT INTO ${this.table} (projection) VALUES (?) ON CONFLICT DO NOTHING`, [projection], PREPARED);
        ({ rows } = await hold());
      }
      const rebuilding = rows[0]?.rebuilding === true;
      if (!rebuilding && tx instanceof PostgresSavepoint) tx.establishForBatch(held);
      return rebuilding;
    });
  }

  async markRebuilding(projection: string): Promise<void> {
    await this.explainMissingTable(() =>
      this.db.execute(
        `INSERT INTO ${this.table} (projection, rebuilding, rebuild_started_at) VALUES (?, true, now())
       ON CONFLICT (projection) DO UPDATE SET rebuilding = true, rebuild_started_at = now()`,
        [projection],
      ),
    );
  }

  async markRebuilt(projection: string, eventsApplied: number, through: ReaderCursor): Promise<void> {
    await this.db.execute(
      `UPDATE ${this.table} SET rebuilding = false, rebuilt_at = now(), events_applied = ?, rebuilt_through_transaction = ?, rebuilt_through_position = ? WHERE projection = ?`,
      [eventsApplied, through.transactionId, through.globalPosition, projection],
    );
  }

  async state(projection: string): Promise<ProjectionState | null> {
    const { rows } = await this.db.execute<Row>(`SELECT * FROM ${this.table} WHERE projection = ?`, [projection]);
    const row = rows[0];
    if (!row) return null;
    return {
      projection: row.projection,
      rebuilding: row.rebuilding,
      rebuildStartedAt: dateOf(row.rebuild_started_at),
      rebuiltAt: dateOf(row.rebuilt_at),
      eventsApplied: row.events_applied === null ? null : Number(row.events_applied),
      rebuiltThrough:
        row.rebuilt_through_position === null
          ? null
          : { transactionId: Number(row.rebuilt_through_transaction), globalPosition: Number(row.rebuilt_through_position) },
    };
  }

  /** A database set up before projections existed lacks the table: say how to add it. */
  private async explainMissingTable<R>(work: () => Promise<R>): Promise<R> {
    try {
      return await work();
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if ((error as { code?: unknown })?.code === '42P01' || (text.includes(PROJECTIONS_TABLE) && text.includes('does not exist'))) {
        throw new Error(
          `table ${PROJECTIONS_TABLE} is missing in PostgreSQL database "${this.db.providerName}"; run protean-ts db setup (or db setup-outbox) to create it`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  async truncate(schema: AggregateSchema): Promise<void> {
    const tables = this.tablesOf(schema).map((table) => this.db.qualify(table));
    await this.db.execute(`TRUNCATE TABLE ${tables.join(', ')}`);
  }
}

// The driver may hand timestamps over as text.
function dateOf(value: Date | string | null): Date | null {
  return value === null ? null : new Date(value);
}
