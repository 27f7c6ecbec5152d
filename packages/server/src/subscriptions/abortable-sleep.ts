/**
 * Waits that end early when the subscription stops, so a retry delay or an outage back-off never
 * holds up a graceful shutdown.
 */

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
