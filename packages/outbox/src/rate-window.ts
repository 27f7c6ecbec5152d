/**
 * Events per second over a sliding window of whole seconds, for the processor's
 * `publishedPerSecond`. Memory is one counter per second of window.
 */
export class RateWindow {
  private readonly buckets: number[];
  private readonly stamps: number[];

  constructor(
    private readonly windowSeconds = 60,
    private readonly now: () => number = Date.now,
  ) {
    this.buckets = new Array<number>(windowSeconds).fill(0);
    this.stamps = new Array<number>(windowSeconds).fill(-1);
  }

  add(count: number): void {
    const second = Math.floor(this.now() / 1000);
    const slot = second % this.windowSeconds;
    if (this.stamps[slot] !== second) {
      this.stamps[slot] = second;
      this.buckets[slot] = 0;
    }
    this.buckets[slot]! += count;
  }

  /** Average over the window's complete seconds plus the current one. */
  perSecond(): number {
    const second = Math.floor(this.now() / 1000);
    let total = 0;
    for (let i = 0; i < this.windowSeconds; i++) {
      const stamp = this.stamps[i]!;
      if (stamp >= 0 && second - stamp < this.windowSeconds) total += this.buckets[i]!;
    }
    return total / this.windowSeconds;
  }
}
