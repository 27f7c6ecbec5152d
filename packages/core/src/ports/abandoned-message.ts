/**
 * What the outbox processor hands to `domain.onAbandoned` listeners when it gives up on a row:
 * enough to alert on, find the row (`protean-ts outbox list --status abandoned`) and retry it.
 */

/** Which bound ended the retries. */
export type AbandonReason = 'max_attempts' | 'max_total_seconds';

export interface AbandonedMessage {
  /** The outbox row's id in its database. */
  outboxId: string;
  /** `metadata.headers.id` of the message. */
  messageId: string;
  messageType: string;
  streamName: string;
  partitionKey: string;
  /** Position of the message within its partition key. */
  sequence: number;
  /** The `[brokers.<name>]` key it was to be published to. */
  targetBroker: string;
  /** Publish attempts made, this last one included. */
  attempts: number;
  reason: AbandonReason;
  /** The text stored in the row's `last_error`: the reason, then the broker's last error. */
  lastError: string;
  createdAt: Date;
  abandonedAt: Date;
}

/**
 * Called once per abandoned row, after the row is recorded as abandoned. It runs outside the relay
 * loop with a time limit: a listener that throws or never settles is logged and counted, and the
 * processor goes on publishing.
 */
export type AbandonedMessageListener = (message: AbandonedMessage) => void | Promise<void>;
