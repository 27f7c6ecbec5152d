/**
 * A clock a test moves by hand: give it to the domain (`domain.clock = clock`, or the `clock`
 * option of `new Domain`) and `advance('15d')` instead of waiting. Process-manager timeouts,
 * outbox and inbox retention, the relay's retry times and subscriptions' retry delays then read
 * it; `drain` fires what its time has made due.
 */
import { parseDuration, type Clock } from '@protean-ts/core';

export class ManualClock implements Clock {
  private current: number;

  /** Starts at `start` (a Date or epoch milliseconds), by default the real time now. */
  constructor(start: Date | number = Date.now()) {
    this.current = ManualClock.millis(start, 'new ManualClock(start)');
  }

  now(): number {
    return this.current;
  }

  /** Moves the clock forward by a duration: milliseconds or the forms of `scheduleTimeout` (`'30s'`, `'2h'`, `'14d'`). */
  advance(by: number | string): this {
    const ms = parseDuration(by, 'ManualClock.advance(by)');
    this.current += ms;
    return this;
  }

  /** Sets the clock to a moment; it may go back, as a test's clock may. */
  set(to: Date | number): this {
    this.current = ManualClock.millis(to, 'ManualClock.set(to)');
    return this;
  }

  private static millis(value: Date | number, what: string): number {
    const ms = value instanceof Date ? value.getTime() : value;
    if (typeof ms !== 'number' || !Number.isFinite(ms)) {
      throw new TypeError(`${what} takes a valid Date or epoch milliseconds, got ${value instanceof Date ? 'an invalid Date' : String(value)}`);
    }
    return ms;
  }
}
