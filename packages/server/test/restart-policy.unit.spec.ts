import { describe, expect, it } from 'vitest';
import { RestartPolicy } from '../src/supervisor/restart-policy.js';

describe('RestartPolicy', () => {
  const options = { initialDelayMs: 100, maxDelayMs: 1000, crashLimit: 4, crashWindowMs: 10_000 };

  it('doubles the delay with each crash inside the window, capped', () => {
    const policy = new RestartPolicy({ ...options, crashLimit: 10 });
    const delays = [0, 1, 2, 3, 4, 5].map((i) => policy.onCrash(1, 1000 + i));
    expect(delays.map((d) => (d.action === 'restart' ? d.delayMs : -1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('gives up when one worker reaches the crash limit within the window', () => {
    const policy = new RestartPolicy(options);
    expect(policy.onCrash(1, 0).action).toBe('restart');
    expect(policy.onCrash(1, 1).action).toBe('restart');
    expect(policy.onCrash(1, 2).action).toBe('restart');
    expect(policy.onCrash(1, 3)).toEqual({ action: 'give-up', recentCrashes: 4 });
  });

  it('forgives crashes that fell out of the window and counts workers separately', () => {
    const policy = new RestartPolicy(options);
    policy.onCrash(1, 0);
    policy.onCrash(1, 1);
    policy.onCrash(1, 2);
    expect(policy.onCrash(2, 3)).toEqual({ action: 'restart', delayMs: 100, recentCrashes: 1 });
    expect(policy.onCrash(1, 20_000)).toEqual({ action: 'restart', delayMs: 100, recentCrashes: 1 });
  });
});
