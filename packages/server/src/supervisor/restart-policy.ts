/**
 * When to restart a crashed worker: exponential backoff from `initialDelayMs`, capped, and a
 * crash-loop limit (`crashLimit` crashes of one worker within `crashWindowMs` means give up).
 * Pure bookkeeping, so the supervisor's decisions are easy to test and to explain in logs.
 */

export interface RestartPolicyOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  crashLimit: number;
  crashWindowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  crashLimit: 5,
  crashWindowMs: 60_000,
};

export type RestartDecision = { action: 'restart'; delayMs: number; recentCrashes: number } | { action: 'give-up'; recentCrashes: number };

export class RestartPolicy {
  private readonly crashes = new Map<number, number[]>();

  constructor(private readonly options: RestartPolicyOptions) {}

  /** Records a crash of worker `workerId` at `now` and says what to do about it. */
  onCrash(workerId: number, now: number): RestartDecision {
    const since = now - this.options.crashWindowMs;
    const recent = (this.crashes.get(workerId) ?? []).filter((t) => t > since);
    recent.push(now);
    this.crashes.set(workerId, recent);
    if (recent.length >= this.options.crashLimit) return { action: 'give-up', recentCrashes: recent.length };
    // Crashes that fell out of the window are forgiven, so a worker that ran fine for a while
    // restarts quickly again.
    const delayMs = Math.min(this.options.maxDelayMs, this.options.initialDelayMs * 2 ** (recent.length - 1));
    return { action: 'restart', delayMs, recentCrashes: recent.length };
  }
}
