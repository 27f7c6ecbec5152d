/**
 * The `protean_command_outcomes` table, created with the outbox (`db setup`, `db setup-outbox`):
 * one row per command sent with `awaitOutcome` or an idempotency key. The partial unique index
 * on the key is what makes two concurrent commands with one key run once.
 */
export const COMMAND_OUTCOMES_TABLE = 'protean_command_outcomes';

export function commandOutcomesDdl(table: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
  command_id text PRIMARY KEY,
  command_type text NOT NULL,
  idempotency_key text,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'refused')),
  result jsonb,
  error_name text,
  error_message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
)`,
    `CREATE UNIQUE INDEX IF NOT EXISTS ${COMMAND_OUTCOMES_TABLE}_key_idx ON ${table} (idempotency_key) WHERE idempotency_key IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS ${COMMAND_OUTCOMES_TABLE}_age_idx ON ${table} (created_at)`,
  ];
}
