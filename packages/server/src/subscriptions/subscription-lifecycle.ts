/**
 * Start, stop and finish of a subscription's read loop, the same for every kind: `start` runs
 * the loop once (a loop that throws is logged, never taken down with the engine), `stop` runs
 * the kind's shutdown once however often it is called, and `finished` waits for the loop.
 */
import type { Logger } from '@protean-ts/core';
import type { SubscriptionCounters, SubscriptionState } from './subscription-status.js';

export function newCounters(): SubscriptionCounters {
  return {
    handled: 0,
    retried: 0,
    deadLettered: 0,
    leftPending: 0,
    skipped: 0,
    duplicates: 0,
    late: 0,
    waits: 0,
    gapsPassed: 0,
    passedAbandoned: 0,
    dropped: 0,
    batches: 0,
    batchedMessages: 0,
  };
}

export abstract class SubscriptionLifecycle {
  protected state: SubscriptionState = 'idle';
  protected readonly counters: SubscriptionCounters = newCounters();
  private loop: Promise<void> | null = null;
  private stopped: Promise<void> | null = null;

  protected abstract readonly log: Logger;
  /** The read loop: catches its own errors and ends only when stopping. */
  protected abstract run(): Promise<void>;
  /** Stops reading and finishes or hands back what is held; called once. */
  protected abstract shutdown(): Promise<void>;

  start(): void {
    if (this.loop) return;
    this.state = 'starting';
    this.loop = this.run().catch((err: unknown) => {
      // run() catches everything itself; reaching this is a bug, and it must not take the engine down.
      this.log.error('subscription loop ended unexpectedly', { error: err });
      this.state = 'stopped';
    });
  }

  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  async finished(): Promise<void> {
    await this.loop;
  }
}
