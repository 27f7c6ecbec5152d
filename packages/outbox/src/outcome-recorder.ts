/**
 * Records what publishing a claimed batch came to: published rows marked, failures charged an
 * attempt with a backoff (or abandoned, logged, marked on their partitions and handed to the
 * abandoned-message listeners), unsent rows released. A row another worker took over meanwhile
 * (its lock expired) is counted as a lost lock, never as an attempt.
 */
import type { Broker, Clock, Logger, OutboxConfig, OutboxRow, OutboxStore } from '@protean-ts/core';
import type { AbandonAlerts } from './abandon-alerts.js';
import { abandonedMessage, planFailures } from './failure-updates.js';
import type { LockHeartbeat } from './lock-heartbeat.js';
import type { OutboxProcessorTotals } from './outbox-processor-metrics.js';
import { publishPositionMarkers } from './position-markers.js';
import type { PublishOutcome } from './publish-claimed.js';
import type { RateWindow } from './rate-window.js';
import type { TickResult } from './tick-result.js';

/** Rows a cycle published and has not marked yet (the heartbeat keeps their lock meanwhile). */
export interface Unsettled {
  rows: OutboxRow[];
}

/** The processor's parts the recorder writes through and counts into. */
export interface OutcomeRecorderHost {
  readonly store: OutboxStore;
  readonly broker: Broker;
  readonly targetBroker: string;
  readonly partitions: number;
  readonly workerId: string;
  readonly config: OutboxConfig;
  readonly log: Logger;
  readonly locks: LockHeartbeat;
  readonly alerts: AbandonAlerts;
  readonly rate: RateWindow;
  readonly random: () => number;
  /** Retry times and abandonment times are counted from its now. */
  readonly clock: Clock;
  /** The processor's running totals, counted into in place. */
  readonly total: Omit<OutboxProcessorTotals, 'abandonAlertsFailed' | 'abandonAlertsDropped'>;
  /** Runs a write about held rows, retrying through a database outage until their lock expires; null when it gave up. */
  persist<T>(what: string, write: () => Promise<T>, ids: readonly string[]): Promise<T | null>;
}

export class OutcomeRecorder {
  constructor(private readonly host: OutcomeRecorderHost) {}

  async published(published: Unsettled, result: TickResult): Promise<void> {
    const ids = published.rows.map((row) => row.id);
    const marked = await this.host.persist('record published messages', () => this.host.store.markPublished(this.host.workerId, ids), ids);
    this.host.locks.drop(ids);
    if (marked === null) {
      this.host.log.warn(`could not record ${ids.length} published messages; they will be published again once their lock expires`, { count: ids.length });
      return;
    }
    this.countPublished(ids.length, marked, result);
  }

  /** `marked` of `sent` published rows were recorded; the rest had been taken over (lost locks). */
  countPublished(sent: number, marked: number, result: TickResult): void {
    result.published += marked;
    result.lostLocks += sent - marked;
    this.host.total.published += marked;
    this.host.rate.add(marked);
    this.noteLostLocks(sent - marked, 'recording them as published');
  }

  async failed(outcome: PublishOutcome, result: TickResult): Promise<void> {
    if (outcome.failed.length === 0) return;
    const now = this.host.clock.now();
    const planned = planFailures(outcome.failed, this.host.config.retry, now, this.host.random);
    const ids = planned.map((p) => p.row.id);
    const updated = await this.host.persist(
      'record failed messages',
      () =>
        this.host.store.markFailed(
          this.host.workerId,
          planned.map((p) => p.update),
        ),
      ids,
    );
    this.host.locks.drop(ids);
    if (updated === null) return;
    // Only the rows this worker still held were recorded; the others belong to their new holder.
    const recorded = new Set(updated);
    const kept = planned.filter((p) => recorded.has(p.row.id));
    result.lostLocks += planned.length - kept.length;
    this.noteLostLocks(planned.length - kept.length, 'recording a failure');
    const abandoned = kept.filter((p) => p.reason !== null);
    // Only on the domain's own broker: external consumers are not protean subscriptions.
    if (abandoned.length && this.host.targetBroker === this.host.config.broker) {
      await publishPositionMarkers(
        this.host.broker,
        abandoned.map((p) => ({ row: p.row, error: p.update.error })),
        this.host.log,
        this.host.partitions,
      );
    }
    for (const { row, update, attempt, delayMs, reason } of kept) {
      const fields = {
        messageId: row.messageId,
        messageType: row.messageType,
        stream: row.streamName,
        attempt,
        maxAttempts: row.maxRetries,
        error: update.error,
      };
      if (reason !== null) {
        result.abandoned += 1;
        this.host.total.abandoned += 1;
        if (reason === 'max_total_seconds') this.host.total.abandonedPastMaxTotalSeconds += 1;
        const why = reason === 'max_attempts' ? '' : `: outbox.retry.max_total_seconds (${this.host.config.retry.max_total_seconds}) passed`;
        this.host.log.warn(`message abandoned after ${attempt} attempts${why}`, { ...fields, reason, partitionKey: row.partitionKey });
      } else {
        result.failed += 1;
        this.host.total.failed += 1;
        this.host.log.warn(`publish failed (attempt ${attempt} of ${row.maxRetries}); retrying in ${Math.round(delayMs)} ms`, {
          ...fields,
          retryInMs: Math.round(delayMs),
        });
      }
    }
    this.host.alerts.raise(abandoned.map((p) => abandonedMessage(p, now)));
  }

  async releaseUnsent(outcome: PublishOutcome, result: TickResult): Promise<void> {
    if (outcome.unsent.length === 0) return;
    const ids = outcome.unsent.map((row) => row.id);
    const released = await this.host.persist('release unsent messages', () => this.host.store.release(this.host.workerId, ids), ids);
    this.host.locks.drop(ids);
    if (released === null) return;
    result.released = released;
    this.host.total.released += released;
  }

  private noteLostLocks(count: number, doing: string): void {
    if (count <= 0) return;
    this.host.total.lostLocks += count;
    this.host.log.info(`${count} rows were taken over by another worker before ${doing} (lock expired); not counted as attempts`, { count });
  }
}
