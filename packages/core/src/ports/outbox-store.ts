/**
 * The outbox table of one database. The unit of work appends rows inside its transaction; the
 * OutboxProcessor (@protean-ts/outbox) claims, publishes and marks them. Every method that
 * changes a claimed row is guarded by `lockedBy`, so a worker whose lock expired cannot
 * overwrite the work of the worker that took the row over.
 */
import type { MessageEnvelope } from '../messages/envelope.js';
import type { ProviderTransaction } from './provider-transaction.js';

/**
 * `scheduled`: a row with a due time (`deliverAt`) still in the future. It holds back nothing and
 * is never claimed; `promoteDue` makes it `pending` once due, and from then on it is like any row.
 */
export type OutboxStatus = 'pending' | 'processing' | 'published' | 'failed' | 'abandoned' | 'scheduled';

export interface NewOutboxRow {
  messageId: string;
  /** Stream the message is published to (`<category>-<id>` or the category, per broker routing). */
  streamName: string;
  /** Rows of one key are published in the order they were appended; the aggregate's stream name. */
  partitionKey: string;
  messageType: string;
  envelope: MessageEnvelope;
  /** `[brokers.<name>]` key this row is relayed to. */
  targetBroker: string;
  maxRetries: number;
  priority?: number;
  correlationId?: string | null;
  causationId?: string | null;
  /**
   * Publish no earlier than this (durable timeouts, `domain.process(cmd, { deliverAt })`). Such a
   * row needs a partition key of its own: it must not sit in the sequence of a busy key, whose
   * later rows would otherwise wait for it (see docs/outbox.md, due times).
   */
  deliverAt?: Date | null;
}

export interface OutboxRow extends NewOutboxRow {
  /** Store-assigned id (bigint as string on SQL stores). */
  id: string;
  /**
   * Store-assigned at append: 1, 2, 3… per (`targetBroker`, `partitionKey`) in commit order, without
   * gaps, and stamped into the envelope as `metadata.envelope.position`, so consumers can tell a
   * key's next message from a duplicate or an early one.
   */
  sequence: number;
  status: OutboxStatus;
  retryCount: number;
  nextRetryAt: Date | null;
  lastError: string | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  createdAt: Date;
  publishedAt: Date | null;
  priority: number;
}

export interface ClaimRequest {
  workerId: string;
  targetBroker: string;
  limit: number;
  /** How long the claim holds; after it, another worker may take the rows. */
  lockMs: number;
}

export interface MarkAndClaimResult {
  /** How many of the published ids this worker still held (the rest were taken over: lost locks). */
  marked: number;
  /** The claimed rows, as `claimBatch` returns them. */
  rows: OutboxRow[];
}

export interface FailureUpdate {
  id: string;
  error: string;
  /** When it may be retried; ignored when `abandon` is true. */
  nextRetryAt: Date;
  /** True when the row has used its attempts: status becomes `abandoned`. */
  abandon: boolean;
}

export interface OutboxCounts {
  pending: number;
  processing: number;
  published: number;
  failed: number;
  abandoned: number;
  /** Rows waiting for their due time (`deliverAt`). */
  scheduled: number;
  /** Age in ms of the oldest pending or failed row, null when none. */
  oldestPendingAgeMs: number | null;
}

/** What `OutboxStore.list` returns: rows in id order, of one status and/or one correlation id when given. */
export interface OutboxListOptions {
  status?: OutboxStatus;
  /** Only the rows of one request (its events and commands). */
  correlationId?: string;
  limit: number;
}

/** Rows published since a moment, per stream. */
export interface StreamPublished {
  streamName: string;
  published: number;
}

export interface OutboxStore {
  /** Writes rows inside the unit of work's transaction. */
  append(tx: ProviderTransaction, rows: readonly NewOutboxRow[]): Promise<void>;
  /**
   * Atomically claims up to `limit` rows that are pending, failed and due, or processing with an
   * expired lock, skipping rows whose partition key has an earlier unfinished row.
   */
  claimBatch(request: ClaimRequest): Promise<OutboxRow[]>;
  /** Marks published; returns how many rows this worker still held. */
  markPublished(workerId: string, ids: readonly string[]): Promise<number>;
  /**
   * `markPublished(request.workerId, publishedIds)` then `claimBatch(request)` as one atomic step
   * (one statement and one commit on SQL stores: the relay settles a batch and claims the next in
   * one round trip). A row marked here counts as finished for the head-of-key rule of the claim;
   * a row this worker no longer held is not marked and still holds back its key.
   */
  markPublishedAndClaim(publishedIds: readonly string[], request: ClaimRequest): Promise<MarkAndClaimResult>;
  /**
   * Records message-level failures (counts an attempt each). Returns the ids it changed: rows this
   * worker still held (the others were taken over and are left to their new holder).
   */
  markFailed(workerId: string, failures: readonly FailureUpdate[]): Promise<string[]>;
  /**
   * Pushes `lockedUntil` to at least now + `lockMs` for the rows still `processing` under
   * `workerId`, so a batch that takes long to publish is not taken over. Never waits for a row
   * another statement has locked (it is skipped and renewed by the next call). Returns the ids it
   * extended.
   */
  extendLocks(workerId: string, ids: readonly string[], lockMs: number): Promise<string[]>;
  /** Gives rows back untouched (no attempt counted), e.g. when the broker is unreachable. */
  release(workerId: string, ids: readonly string[]): Promise<number>;
  /** Deletes, in batches, published rows older than one date and abandoned rows older than another. */
  cleanup(options: { publishedBefore: Date; abandonedBefore: Date; batchSize: number }): Promise<{ published: number; abandoned: number }>;
  counts(targetBroker?: string): Promise<OutboxCounts>;
  list(options: OutboxListOptions): Promise<OutboxRow[]>;
  /** Rows published at or after `since`, counted per stream, in stream-name order (for message rates). */
  publishedByStream(since: Date): Promise<StreamPublished[]>;
  /** Puts abandoned/failed rows back to pending with a fresh attempt count; returns how many. */
  retry(options: { ids?: readonly string[]; allAbandoned?: boolean }): Promise<number>;
  /**
   * Makes `scheduled` rows of `targetBroker` whose due time has come `pending` (at most `limit`),
   * so the next claim takes them. Returns how many it promoted and the earliest due time still
   * ahead (null when none), for the processor to wake up then. `dueBy` moves "now" forward: rows
   * due by then count as due (a later time than the database's clock only; tests use it to fire
   * timeouts early, see @protean-ts/testing's `drain(domain, { dueWithin })`).
   */
  promoteDue(targetBroker: string, limit: number, options?: { dueBy?: Date }): Promise<{ promoted: number; nextDueAt: Date | null }>;
  /**
   * Deletes, inside `tx`, the `scheduled` rows whose partition key starts with `keyPrefix`
   * (a completed process manager's pending timeouts). Returns how many (the memory store counts at commit).
   */
  cancelScheduled(tx: ProviderTransaction, keyPrefix: string): Promise<number>;
  /**
   * Calls `listener` soon after any transaction that appended rows commits (PostgreSQL LISTEN/NOTIFY,
   * or an in-process signal). Returns an unsubscribe function. Polling stays the safety net.
   */
  onAppended(listener: () => void): Promise<() => Promise<void>>;
}
