/**
 * The time the domain and the server decide by: when a process-manager timeout falls due, which
 * rows and records are past their retention, when a failed message is retried. One `Clock` per
 * Domain (`domain.clock`), so a test can move it (`ManualClock` in @protean-ts/testing) instead
 * of waiting. Durations measured for logs and metrics keep reading the real time.
 */

export interface Clock {
  /** Milliseconds since the Unix epoch, as `Date.now()`. */
  now(): number;
}

/** The real time: the default clock of every Domain. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
