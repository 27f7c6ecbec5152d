/**
 * The inbox tables and their DDL. Idempotent, created with the outbox (`db setup`,
 * `db setup-outbox`): checkpoints per (subscription, key), positions passed without their
 * message, and handled messages that carry no position.
 */
export const INBOX_CHECKPOINTS_TABLE = 'protean_inbox_checkpoints';
export const INBOX_PASSED_TABLE = 'protean_inbox_passed';
export const INBOX_MESSAGES_TABLE = 'protean_inbox_messages';
export const INBOX_TABLES = [INBOX_CHECKPOINTS_TABLE, INBOX_PASSED_TABLE, INBOX_MESSAGES_TABLE] as const;

export interface InboxTableNames {
  checkpoints: string;
  passed: string;
  messages: string;
}

export function inboxDdl(t: InboxTableNames): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.checkpoints} (
  subscription text NOT NULL,
  partition_key text COLLATE "C" NOT NULL,
  last_sequence bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription, partition_key)
)`,
    `CREATE TABLE IF NOT EXISTS ${t.passed} (
  subscription text NOT NULL,
  partition_key text COLLATE "C" NOT NULL,
  sequence bigint NOT NULL,
  reason text NOT NULL,
  message_id text,
  broker_message_id text,
  passed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription, partition_key, sequence)
)`,
    `CREATE INDEX IF NOT EXISTS ${INBOX_PASSED_TABLE}_age_idx ON ${t.passed} (passed_at)`,
    `CREATE TABLE IF NOT EXISTS ${t.messages} (
  subscription text NOT NULL,
  message_id text NOT NULL,
  handled_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription, message_id)
)`,
    `CREATE INDEX IF NOT EXISTS ${INBOX_MESSAGES_TABLE}_age_idx ON ${t.messages} (handled_at)`,
  ];
}
