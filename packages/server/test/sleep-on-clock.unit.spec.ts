/**
 * A subscription's retry delay is due by the domain's clock: moving the clock past it ends the
 * wait within a recheck, a clock left standing never makes it longer than the real delay, and a
 * stop ends it at once.
 */
import { describe, expect, it } from 'vitest';
import { CLOCK_RECHECK_MS, sleepOnClock } from '../src/subscriptions/abortable-sleep.js';

/** A clock a test moves by hand (the users' ManualClock is in @protean-ts/testing, which depends on this package). */
function movableClock() {
  let now = Date.parse('2030-01-01T00:00:00Z');
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('sleepOnClock', () => {
  it('ends within a recheck once the clock is moved past the due time, long before the real delay', async () => {
    const clock = movableClock();
    const started = Date.now();
    const waiting = sleepOnClock(60_000, clock, new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    clock.advance(59_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    let ended = false;
    void waiting.then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, CLOCK_RECHECK_MS * 2));
    expect(ended).toBe(false);
    clock.advance(1_000);
    await waiting;
    // Generous for a loaded machine: the delay it cut short is 60 s.
    expect(Date.now() - started).toBeLessThan(600 + CLOCK_RECHECK_MS * 3 + 3_000);
  });

  it('waits the real delay when the clock stands still, and no longer', async () => {
    const clock = movableClock();
    const started = Date.now();
    await sleepOnClock(500, clock, new AbortController().signal);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(490);
    expect(waited).toBeLessThan(500 + 2_000);
  });

  it('follows the system clock as a plain wait, and returns at once for no delay or a stop', async () => {
    const started = Date.now();
    await sleepOnClock(300, { now: () => Date.now() }, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);

    const stop = new AbortController();
    const stopping = Date.now();
    setTimeout(() => stop.abort(), 100);
    await sleepOnClock(60_000, movableClock(), stop.signal);
    expect(Date.now() - stopping).toBeLessThan(100 + 2_000);

    const instant = Date.now();
    await sleepOnClock(0, movableClock(), new AbortController().signal);
    expect(Date.now() - instant).toBeLessThan(50);
  });
});
