/**
 * The tables of event-store subscriptions, created with the event store's:
 * - `protean_event_store_subscriptions`: per subscription its lease (owner, expiry by the
 *   database's clock, so workers' clocks never matter) and its read cursor.
 * - `protean_event_store_dead_letters`: events a subscription gave up on, by global position
 *   (the event itself stays in its stream; this row points at it and says why).
 */
export const SUBSCRIPTIONS_TABLE = 'protean_event_store_subscriptions';
export const DEAD_LETTERS_TABLE = 'protean_event_store_dead_letters';

export interface SubscriptionTableNames {
  subscriptions: string;
  deadLetters: string;
}

export function subscriptionDdl(t: SubscriptionTableNames): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${t.subscriptions} (
  subscription text COLLATE "C" PRIMARY KEY,
  owner text,
  lease_expires_at timestamptz,
  cursor_transaction_id bigint NOT NULL DEFAULT 0,
  cursor_global_position bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
)`,
    `CREATE TABLE IF NOT EXISTS ${t.deadLetters} (
  subscription text COLLATE "C" NOT NULL,
  global_position bigint NOT NULL,
  stream_name text NOT NULL,
  position bigint NOT NULL,
  message_id text NOT NULL,
  type text NOT NULL,
  error text NOT NULL,
  dead_lettered_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (subscription, global_position)
)`,
  ];
}
