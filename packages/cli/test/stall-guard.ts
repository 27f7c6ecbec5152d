/**
 * Fails a wait that stopped moving, not one that moves slowly. CI runs these tests beside the
 * shop's e2e on two cores, where a drain takes three times as long as alone (the Redis consumer
 * e2e: 65 s alone, 185 s beside it); a fixed deadline then fails a run that was only slow, while a
 * stalled one is still caught, a minute after it stalled.
 */
export class StallGuard {
  private lastState: string | undefined;
  private movedAt = Date.now();

  constructor(private readonly stallMs = 60_000) {}

  /** Throws when `state` (what the wait watches, e.g. effects and pending) has not changed for stallMs. */
  check(state: string, explain: () => string): void {
    if (state !== this.lastState) {
      this.lastState = state;
      this.movedAt = Date.now();
      return;
    }
    const still = Date.now() - this.movedAt;
    if (still > this.stallMs) throw new Error(`stalled: no change for ${Math.round(still / 1000)} s at ${state}\n${explain()}`);
  }
}
