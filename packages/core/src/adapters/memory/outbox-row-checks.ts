/**
 * Checks rows handed to `OutboxStore.append` before they are stored, so a bug in the caller
 * fails at the write with the field named, not later in the publisher.
 */
import { InvalidOutboxRowError } from '../../errors/invalid-outbox-row.error.js';
import type { NewOutboxRow } from '../../ports/outbox-store.js';

const TEXT_FIELDS = ['messageId', 'streamName', 'partitionKey', 'messageType', 'targetBroker'] as const;

export function validateOutboxRows(rows: readonly NewOutboxRow[]): void {
  rows.forEach((row, index) => {
    for (const field of TEXT_FIELDS) {
      if (typeof row[field] !== 'string' || row[field] === '') throw new InvalidOutboxRowError(index, field, 'must be a non-empty string');
    }
    if (!Number.isSafeInteger(row.maxRetries) || row.maxRetries < 0)
      throw new InvalidOutboxRowError(index, 'maxRetries', `must be a non-negative integer, got ${String(row.maxRetries)}`);
    if (row.priority !== undefined && !Number.isSafeInteger(row.priority)) throw new InvalidOutboxRowError(index, 'priority', 'must be an integer');
    if (row.deliverAt !== undefined && row.deliverAt !== null && (!(row.deliverAt instanceof Date) || Number.isNaN(row.deliverAt.getTime()))) {
      throw new InvalidOutboxRowError(index, 'deliverAt', 'must be a valid Date or null');
    }
    if (typeof row.envelope !== 'object' || row.envelope === null || !('metadata' in row.envelope)) {
      throw new InvalidOutboxRowError(index, 'envelope', 'must be a message envelope { data, metadata }');
    }
  });
}
