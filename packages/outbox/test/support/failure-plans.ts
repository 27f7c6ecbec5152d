/** A stored outbox row that failed, and planFailures' verdict on it, for the failure-update tests. */
import { defaultConfig, type OutboxRetryConfig, type OutboxRow } from '@protean-ts/core';
import { RowFactory } from '@protean-ts/conformance';
import { planFailures } from '../../src/failure-updates.js';

export const retry = (overrides: Partial<OutboxRetryConfig> = {}): OutboxRetryConfig => ({ ...defaultConfig().outbox.retry, jitter: false, ...overrides });
const factory = new RowFactory();

export function storedRow(createdAt: number, retryCount: number, maxRetries: number): OutboxRow {
  return {
    ...factory.row('a', 1),
    id: '7',
    sequence: 1,
    status: 'processing',
    retryCount,
    maxRetries,
    nextRetryAt: null,
    lastError: null,
    lockedBy: 'w',
    lockedUntil: new Date(createdAt + 60_000),
    createdAt: new Date(createdAt),
    publishedAt: null,
    priority: 0,
    correlationId: null,
    causationId: null,
  };
}

/** planFailures for one row failing with a Redis error, with jitter fixed at 0.5. */
export const plan = (row: OutboxRow, config: OutboxRetryConfig, now: number) =>
  planFailures([{ row, error: new Error('WRONGTYPE Operation against a key holding the wrong kind of value') }], config, now, () => 0.5)[0]!;
