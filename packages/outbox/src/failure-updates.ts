/**
 * Turns message-level publish failures into the store's `FailureUpdate`s: one attempt each, the
 * next retry time from `computeBackoff`, and `abandon` once the row has used its attempts
 * (`maxRetries` holds `outbox.retry.max_attempts` as it was when the row was written) or its time:
 * `outbox.retry.max_total_seconds` counted from the row's creation. A retry is never scheduled past
 * that bound: the last one is moved to it, and a failure at or after it abandons the row.
 */
import type { AbandonedMessage, AbandonReason, FailureUpdate, OutboxRetryConfig, OutboxRow } from '@protean-ts/core';
import { computeBackoff } from './compute-backoff.js';

export interface PlannedFailure {
  row: OutboxRow;
  update: FailureUpdate;
  /** This failure's attempt number, from 1. */
  attempt: number;
  delayMs: number;
  /** Why the row is abandoned; null when it will be retried. */
  reason: AbandonReason | null;
}

export function planFailures(
  failures: readonly { row: OutboxRow; error: Error }[],
  retry: OutboxRetryConfig,
  now: number,
  random: () => number,
): PlannedFailure[] {
  return failures.map(({ row, error }) => {
    const attempt = row.retryCount + 1;
    const deadline = retryDeadline(row, retry);
    const reason: AbandonReason | null = attempt >= row.maxRetries ? 'max_attempts' : now >= deadline ? 'max_total_seconds' : null;
    const delayMs = reason ? 0 : Math.min(computeBackoff(attempt, retry, random), deadline - now);
    const text = describe(error);
    return {
      row,
      attempt,
      delayMs,
      reason,
      update: {
        id: row.id,
        error: reason ? `${abandonedBecause(reason, row, attempt, retry, now)}; last error: ${text}` : text,
        nextRetryAt: new Date(now + delayMs),
        abandon: reason !== null,
      },
    };
  });
}

/** When a row stops being retried: `max_total_seconds` after its creation (never when 0). */
export function retryDeadline(row: Pick<OutboxRow, 'createdAt'>, retry: Pick<OutboxRetryConfig, 'max_total_seconds'>): number {
  return retry.max_total_seconds > 0 ? row.createdAt.getTime() + retry.max_total_seconds * 1000 : Number.POSITIVE_INFINITY;
}

function abandonedBecause(reason: AbandonReason, row: OutboxRow, attempt: number, retry: OutboxRetryConfig, now: number): string {
  if (reason === 'max_attempts') return `abandoned after ${attempt} attempts (outbox.retry.max_attempts = ${row.maxRetries})`;
  const seconds = Math.round((now - row.createdAt.getTime()) / 1000);
  return `abandoned ${seconds} s after it was written, after ${attempt} attempts (outbox.retry.max_total_seconds = ${retry.max_total_seconds})`;
}

/** What the `domain.onAbandoned` listeners receive for a planned failure that abandons its row. */
export function abandonedMessage({ row, update, attempt, reason }: PlannedFailure, now: number): AbandonedMessage {
  return {
    outboxId: row.id,
    messageId: row.messageId,
    messageType: row.messageType,
    streamName: row.streamName,
    partitionKey: row.partitionKey,
    sequence: row.sequence,
    targetBroker: row.targetBroker,
    attempts: attempt,
    reason: reason ?? 'max_attempts',
    lastError: update.error,
    createdAt: new Date(row.createdAt),
    abandonedAt: new Date(now),
  };
}

// last_error is for operators: the message plus the cause the adapter attached, bounded in size.
function describe(error: Error): string {
  const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : '';
  const text = `${error.name}: ${error.message}${cause}`;
  return text.length > 2000 ? `${text.slice(0, 1997)}...` : text;
}
