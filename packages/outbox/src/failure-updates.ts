/**
 * Turns message-level publish failures into the store's `FailureUpdate`s: one attempt each, the
 * next retry time from `computeBackoff`, and `abandon` once the row has used its attempts
 * (`maxRetries` holds `outbox.retry.max_attempts` as it was when the row was written).
 */
import type { FailureUpdate, OutboxRetryConfig, OutboxRow } from '@protean-ts/core';
import { computeBackoff } from './compute-backoff.js';

export interface PlannedFailure {
  row: OutboxRow;
  update: FailureUpdate;
  /** This failure's attempt number, from 1. */
  attempt: number;
  delayMs: number;
}

export function planFailures(
  failures: readonly { row: OutboxRow; error: Error }[],
  retry: OutboxRetryConfig,
  now: number,
  random: () => number,
): PlannedFailure[] {
  return failures.map(({ row, error }) => {
    const attempt = row.retryCount + 1;
    const abandon = attempt >= row.maxRetries;
    const delayMs = abandon ? 0 : computeBackoff(attempt, retry, random);
    return {
      row,
      attempt,
      delayMs,
      update: { id: row.id, error: describe(error), nextRetryAt: new Date(now + delayMs), abandon },
    };
  });
}

// last_error is for operators: the message plus the cause the adapter attached, bounded in size.
function describe(error: Error): string {
  const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : '';
  const text = `${error.name}: ${error.message}${cause}`;
  return text.length > 2000 ? `${text.slice(0, 1997)}...` : text;
}
