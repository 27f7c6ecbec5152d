import { afterEach, describe, expect, it, vi } from 'vitest';
import { StallGuard } from './stall-guard.js';

describe('StallGuard (the e2e drains’ hang guard)', () => {
  afterEach(() => vi.useRealTimers());

  it('lets a slow wait go on while its state changes, and fails one whose state stood still too long', () => {
    vi.useFakeTimers({ now: 0 });
    const guard = new StallGuard(90_000);
    for (let handled = 0; handled < 10; handled++) {
      guard.check(`${handled} effects`, () => 'logs');
      vi.advanceTimersByTime(80_000);
    }
    guard.check('9 effects', () => 'logs');
    vi.advanceTimersByTime(10_001);
    expect(() => guard.check('9 effects', () => 'the logs')).toThrow(/stalled: no change for 90 s at 9 effects\nthe logs/);
  });
});
