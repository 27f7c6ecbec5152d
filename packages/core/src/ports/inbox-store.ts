/**
 * The inbox of one database: what stream subscriptions record so a redelivered message is never
 * handled twice and a key's messages are handled in their outbox order. Per (subscription,
 * partition key) a checkpoint holds the last sequence accounted for; it moves in the handler's
 * own transaction, so the effect and the record commit or roll back together. Messages without a
 * position (from outside the outbox) are recorded by message id instead.
 */
import type { MessagePosition } from '../messages/envelope.js';
import type { ProviderTransaction } from './provider-transaction.js';

export interface InboxEntry {
  /** The subscription (consumer group) name. */
  subscription: string;
  /** The message's position; null for messages from outside the outbox (recorded by id). */
  position: MessagePosition | null;
  messageId: string;
  /** The broker's id of this delivery (a Redis entry id): tells a redelivery from a replay. */
  brokerMessageId: string;
  /**
   * Take this message even though its predecessors never came (the gap timed out, or the key has
   * no checkpoint here): the positions jumped over are recorded as passed.
   */
  jumpGap?: boolean;
  /**
   * The broker has delivered this message before (a redelivery after a crash or a takeover). A
   * store may take a first delivery on trust as its key's next inside a batched transaction and
   * check that at the batch's commit; a redelivery is always checked at once.
   */
  redelivered?: boolean;
}

/**
 * What `enter` found:
 * - `next`: handle it; the checkpoint moves to its sequence when the transaction commits.
 * - `duplicate`: handled (or passed) already: ack it and do nothing.
 * - `early`: a predecessor has not been accounted for yet: leave it and try again later.
 * - `late`: its position was passed without it (gap timeout, abandoned row, or it was
 *   dead-lettered and is now replayed): handle it now, out of order; the passed record goes.
 * - `dead-lettered`: this very delivery was dead-lettered before but its ack was lost: move it
 *   to the dead letters again without handling it.
 */
export type InboxVerdict =
  | { kind: 'next' }
  | { kind: 'duplicate'; checkpoint: number | null }
  | { kind: 'early'; checkpoint: number | null }
  | { kind: 'late'; passedAs: string }
  | { kind: 'dead-lettered' };

/** Moves a key past a position without handling the message there. */
export interface PositionPass {
  key: string;
  sequence: number;
  /**
   * Recorded with the pass (`dead-lettered`, `abandoned in the outbox`…), so the message is
   * handled if it ever comes (replay, `outbox retry`). Absent for messages this subscription
   * does not handle: those are simply accounted for.
   */
  reason?: string;
  messageId?: string;
  brokerMessageId?: string;
}

export interface InboxCleanup {
  /** Records of un-positioned messages and passed positions older than this go. */
  before: Date;
  batchSize: number;
}

/** A key's checkpoint in one subscription, as observers read it. */
export interface InboxCheckpointRecord {
  subscription: string;
  key: string;
  sequence: number;
  /** When the checkpoint last moved. */
  updatedAt: Date;
}

/** A position a subscription moved past without handling it, and why. */
export interface InboxPassedRecord {
  subscription: string;
  key: string;
  sequence: number;
  reason: string;
  passedAt: Date;
}

/** Messages a subscription has accounted for: its checkpoints' sequences plus its handled-message records. */
export interface InboxSubscriptionTotal {
  subscription: string;
  total: number;
}

export interface InboxStore {
  /** In the handler's transaction, before the handler runs. */
  enter(tx: ProviderTransaction, entry: InboxEntry): Promise<InboxVerdict>;
  /**
   * Auto-commit: moves each key past its position when that position is the key's next (a
   * sequence of 1 on a key without checkpoint counts as next). A pass with a reason for a position
   * passed before (a late message that failed again) renews that record. Returns, in input order,
   * whether each moved (or was renewed); one that did not is early, or handled already
   * (`checkpoint` tells).
   */
  pass(subscription: string, passes: readonly PositionPass[]): Promise<boolean[]>;
  /** The key's checkpoint for a subscription; null when none. */
  checkpoint(subscription: string, key: string): Promise<number | null>;
  /**
   * Forgets a subscription: its checkpoints, passed positions and handled-message records (a
   * projection rebuild starts its projectors' inboxes afresh). Returns how many records went.
   */
  forget(subscription: string): Promise<number>;
  /** Deletes old records in bounded batches; returns how many went. Checkpoints are kept. */
  cleanup(options: InboxCleanup): Promise<number>;
  /** Every subscription's checkpoints and passed positions of these keys (a message journey). */
  positions(keys: readonly string[]): Promise<{ checkpoints: InboxCheckpointRecord[]; passed: InboxPassedRecord[] }>;
  /** Per subscription, in name order, the messages accounted for since its inbox began (message rates). */
  totals(): Promise<InboxSubscriptionTotal[]>;
}

/** The inbox records of event-store subscriptions stay apart from a stream subscription of the same name. */
export function eventStoreInboxName(subscription: string): string {
  return `event_store:${subscription}`;
}
