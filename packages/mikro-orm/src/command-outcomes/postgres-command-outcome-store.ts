/**
 * The PostgreSQL `CommandOutcomeStore`. A claim is an insert that does nothing on a conflict:
 * PostgreSQL makes a second insert of a key held by an open transaction wait for it, and then
 * (read committed) the lookup that follows sees the first command's committed row.
 */
import type {
  ClaimResult,
  CommandClaim,
  CommandOutcome,
  CommandOutcomeCleanup,
  CommandOutcomeRecord,
  CommandOutcomeStatus,
  CommandOutcomeStore,
  ProviderTransaction,
} from '@protean-ts/core';
import { PREPARED, type SqlDatabase, type SqlExecutor } from '../sql-executor.js';
import { transactionExecutor } from '../transaction-executor.js';
import { COMMAND_OUTCOMES_TABLE } from './command-outcomes-table.js';

interface OutcomeRow {
  command_id: string;
  command_type: string;
  idempotency_key: string | null;
  status: CommandOutcomeStatus;
  result: unknown;
  error_name: string | null;
  error_message: string | null;
  created_at: Date | string;
  completed_at: Date | string | null;
}

/** A claim that found its key taken, but the holder's row gone (cleaned up meanwhile) is tried again this often. */
const CLAIM_ATTEMPTS = 3;

export class PostgresCommandOutcomeStore implements CommandOutcomeStore {
  readonly table: string;

  constructor(private readonly db: SqlDatabase) {
    this.table = db.qualify(COMMAND_OUTCOMES_TABLE);
  }

  async claim(tx: ProviderTransaction, claim: CommandClaim): Promise<ClaimResult> {
    const sql = transactionExecutor(tx, this.db.providerName, 'The command outcomes', 'so the claim commits with the command');
    for (let attempt = 1; ; attempt++) {
      const inserted = await sql.execute(
        `INSERT INTO ${this.table} (command_id, command_type, idempotency_key, status) VALUES (?, ?, ?, 'pending') ON CONFLICT DO NOTHING RETURNING command_id`,
        [claim.commandId, claim.commandType, claim.idempotencyKey],
        PREPARED,
      );
      if (inserted.rowCount > 0) return { claimed: true };
      const existing = claim.idempotencyKey === null ? null : await this.byKey(sql, claim.idempotencyKey);
      // The same command claimed before (processed twice): its own record.
      const found = existing ?? (await this.byId(sql, claim.commandId));
      if (found) return { claimed: false, existing: found };
      if (attempt >= CLAIM_ATTEMPTS)
        throw new Error(`Could not claim the outcome record of command ${claim.commandId} in ${this.table}: the conflicting row kept disappearing`);
    }
  }

  async complete(tx: ProviderTransaction | null, commandId: string, outcome: CommandOutcome): Promise<boolean> {
    const sql: SqlExecutor = tx ? transactionExecutor(tx, this.db.providerName, 'The command outcomes', 'so the outcome commits with the handler') : this.db;
    const params =
      outcome.status === 'succeeded'
        ? ['succeeded', JSON.stringify(outcome.result ?? null), null, null]
        : ['refused', null, outcome.errorName, outcome.errorMessage];
    // A refusal never replaces a success (a retry that succeeded came first).
    const updated = await sql.execute(
      `UPDATE ${this.table} SET status = ?, result = ?::jsonb, error_name = ?, error_message = ?, completed_at = now()
WHERE command_id = ? AND (? = 'succeeded' OR status <> 'succeeded')`,
      [...params, commandId, outcome.status],
      PREPARED,
    );
    return updated.rowCount > 0;
  }

  async get(commandId: string): Promise<CommandOutcomeRecord | null> {
    return this.byId(this.db, commandId);
  }

  async cleanup(options: CommandOutcomeCleanup): Promise<number> {
    const result = await this.db.execute<{ n: number }>(
      `WITH doomed AS (
  SELECT ctid FROM ${this.table} WHERE created_at < ?::timestamptz ORDER BY created_at LIMIT ?::integer FOR UPDATE SKIP LOCKED
), gone AS (
  DELETE FROM ${this.table} t USING doomed d WHERE t.ctid = d.ctid RETURNING 1
)
SELECT count(*)::integer AS n FROM gone`,
      [options.before.toISOString(), options.batchSize],
    );
    return result.rows[0]?.n ?? 0;
  }

  private async byKey(sql: SqlExecutor, key: string): Promise<CommandOutcomeRecord | null> {
    const { rows } = await sql.execute<OutcomeRow>(`SELECT * FROM ${this.table} WHERE idempotency_key = ?`, [key], PREPARED);
    return rows[0] ? recordOf(rows[0]) : null;
  }

  private async byId(sql: SqlExecutor, commandId: string): Promise<CommandOutcomeRecord | null> {
    const { rows } = await sql.execute<OutcomeRow>(`SELECT * FROM ${this.table} WHERE command_id = ?`, [commandId], PREPARED);
    return rows[0] ? recordOf(rows[0]) : null;
  }
}

function recordOf(row: OutcomeRow): CommandOutcomeRecord {
  return {
    commandId: row.command_id,
    commandType: row.command_type,
    idempotencyKey: row.idempotency_key,
    status: row.status,
    result: row.result ?? null,
    errorName: row.error_name,
    errorMessage: row.error_message,
    createdAt: new Date(row.created_at),
    completedAt: row.completed_at === null ? null : new Date(row.completed_at),
  };
}
