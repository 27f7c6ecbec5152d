/**
 * The doubling delay the processor uses while the broker or the database is unreachable
 * (message retries use `computeBackoff` and the `[outbox.retry]` keys instead).
 */
export interface BackoffSchedule {
  initialMs: number;
  maxMs: number;
}

export class Backoff {
  private nextMs: number;

  constructor(private readonly schedule: BackoffSchedule) {
    this.nextMs = schedule.initialMs;
  }

  /** The delay to wait now; the following one doubles, up to the maximum. */
  next(): number {
    const delay = this.nextMs;
    this.nextMs = Math.min(this.nextMs * 2, this.schedule.maxMs);
    return delay;
  }

  reset(): void {
    this.nextMs = this.schedule.initialMs;
  }
}
