/**
 * When an outbox processor makes due scheduled rows (`deliverAt`, process-manager timeouts)
 * pending: at most once per poll interval, or as soon as the timer it sets for the next due row
 * fires when that comes before the next poll. A commit's wake-up does not promote, which saves a
 * round trip before the claim of every quiet message.
 */
import type { Clock, Logger, OutboxStore } from '@protean-ts/core';

/** Scheduled rows promoted per statement at most; more wait for the next one. */
const PROMOTE_LIMIT = 1000;

export class DuePromotion {
  private dueTimer: NodeJS.Timeout | undefined;
  /** When due rows were last promoted (0: never). */
  private lastPromotionAt = 0;
  /** The due timer woke the processor: the next pass promotes whatever the interval says. */
  private dueTimerFired = false;
  private stopped = false;

  constructor(
    private readonly store: OutboxStore,
    private readonly targetBroker: string,
    private readonly tickMs: number,
    private readonly log: Logger,
    /** Rows are due by its now (a `ManualClock` moved forward makes them due early); never before the store's own. */
    private readonly clock: Clock,
    /** Wakes the processor's loop when the due timer fires. */
    private readonly wake: () => void,
  ) {}

  /** Whether a pass's first claim promotes due rows first: the due timer fired, or a poll interval passed. */
  due(): boolean {
    return this.dueTimerFired || Date.now() - this.lastPromotionAt >= this.tickMs;
  }

  /**
   * Makes due scheduled rows pending, so the claim that follows takes them, and arranges a wake-up
   * at the next due time when that comes before the next poll.
   */
  async promote(): Promise<void> {
    const startedAt = Date.now();
    const timerFired = this.dueTimerFired;
    // Cleared first: a due timer firing while the statement runs asks for the next pass's promotion.
    this.dueTimerFired = false;
    let outcome: Awaited<ReturnType<OutboxStore['promoteDue']>>;
    try {
      outcome = await this.store.promoteDue(this.targetBroker, PROMOTE_LIMIT, { dueBy: new Date(this.clock.now()) });
    } catch (error) {
      // Not done: the next pass promotes if the due timer or the interval since the last success says so.
      this.dueTimerFired ||= timerFired;
      throw error;
    }
    this.lastPromotionAt = startedAt;
    const { promoted, nextDueAt } = outcome;
    if (promoted > 0) this.log.debug(`${promoted} scheduled messages are due`, { count: promoted });
    this.wakeAt(nextDueAt);
  }

  stop(): void {
    this.stopped = true;
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = undefined;
  }

  private wakeAt(due: Date | null): void {
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = undefined;
    if (!due || this.stopped) return;
    const wait = due.getTime() - this.clock.now();
    // Only when it is nearer than the next poll; the poll covers the rest.
    if (wait >= this.tickMs) return;
    this.dueTimer = setTimeout(
      () => {
        this.dueTimerFired = true;
        this.wake();
      },
      Math.max(0, wait),
    );
    this.dueTimer.unref?.();
  }
}
