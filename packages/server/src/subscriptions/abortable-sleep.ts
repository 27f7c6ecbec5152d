/**
 * Waits that end early when the subscription stops, so a retry delay or an outage back-off never
 * holds up a graceful shutdown. A retry delay is also a due time by the domain's clock
 * (`sleepOnClock`), so a test that moves the clock forward sees the retry at once.
 */
import type { Clock } from '@protean-ts/core';

/** Resolves after `ms`, or at once when `signal` aborts; never rejects. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Exponential back-off for loop errors: 0.5 s, 1 s, 2 s … capped at `maxMs`. */
export function backoffDelay(consecutiveFailures: number, baseMs = 500, maxMs = 30_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, consecutiveFailures - 1));
}

/** How often a back-off after an outage asks whether the service answers again. */
export const RECOVERY_PROBE_MS = 250;

/**
 * Waits up to `ms` like abortableSleep, but ends as soon as `answers()` says the service is back
 * (asked every RECOVERY_PROBE_MS), so a loop backing off after a long outage resumes within a
 * fraction of a second of the service's return instead of at the end of a 30 s back-off.
 * Resolves true when it ended because the service answered.
 */
export async function sleepUntilRecovered(ms: number, signal: AbortSignal, answers: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  while (!signal.aborted) {
    const left = until - Date.now();
    if (left <= 0) return false;
    await abortableSleep(Math.min(RECOVERY_PROBE_MS, left), signal);
    if (signal.aborted) return false;
    if (await answers().catch(() => false)) return true;
  }
  return false;
}

/** How often a wait on the domain's clock looks at it again: a clock moved past the due time ends the wait within this long. */
export const CLOCK_RECHECK_MS = 100;

/**
 * Waits until `clock` has moved `ms` on from now, and at most `ms` of real time, or until `signal`
 * aborts. With the system clock that is a plain `ms` wait; a clock moved forward (a test's
 * `ManualClock`) ends it early, and one left standing never holds it longer.
 */
export async function sleepOnClock(ms: number, clock: Clock, signal: AbortSignal): Promise<void> {
  const dueAt = clock.now() + ms;
  const latest = Date.now() + ms;
  while (!signal.aborted) {
    const left = Math.min(dueAt - clock.now(), latest - Date.now());
    if (left <= 0) return;
    await abortableSleep(Math.min(CLOCK_RECHECK_MS, left), signal);
  }
}
