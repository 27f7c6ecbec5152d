/** Completes an outbox processor's metrics with the store's row counts for its broker; a failed count is reported, not thrown. */
import type { OutboxStore } from '@protean-ts/core';
import type { OutboxProcessorMetrics } from './outbox-processor-metrics.js';

type ProcessorFigures = Pick<
  OutboxProcessorMetrics,
  'name' | 'targetBroker' | 'workerId' | 'state' | 'publishedPerSecond' | 'totals' | 'heldRows' | 'backPressure'
>;

export async function withStoreCounts(base: ProcessorFigures, store: OutboxStore, targetBroker: string): Promise<OutboxProcessorMetrics> {
  try {
    const counts = await store.counts(targetBroker);
    return {
      ...base,
      pending: counts.pending,
      processing: counts.processing,
      failed: counts.failed,
      abandoned: counts.abandoned,
      scheduled: counts.scheduled,
      oldestPendingAgeMs: counts.oldestPendingAgeMs,
    };
  } catch (error) {
    const countsError = error instanceof Error ? error.message : String(error);
    return { ...base, pending: null, processing: null, failed: null, abandoned: null, oldestPendingAgeMs: null, countsError };
  }
}
