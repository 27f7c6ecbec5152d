/**
 * A worker in a process group that receives SIGTERM gets it twice (from the group signal and
 * from its supervisor): that must stay one graceful shutdown, while an operator's later second
 * signal still exits at once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getLogger } from '@protean-ts/core';
import { DUPLICATE_SIGNAL_MS, installShutdown, type ShutdownHandle } from '../src/shutdown.js';

describe('installShutdown signals', () => {
  let handle: ShutdownHandle | undefined;
  afterEach(() => {
    handle?.dispose();
    vi.useRealTimers();
  });

  it('treats the same signal repeated at once as one request, and a later one as the operator insisting', async () => {
    vi.useFakeTimers();
    const forceExit = vi.fn();
    let finish!: (code: number) => void;
    handle = installShutdown({
      graceMs: 60_000,
      logger: getLogger('test'),
      signals: ['SIGTERM'],
      forceExit,
      shutdown: () => new Promise((resolve) => (finish = resolve)),
    });
    process.emit('SIGTERM');
    process.emit('SIGTERM');
    expect(forceExit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(DUPLICATE_SIGNAL_MS + 1);
    process.emit('SIGTERM');
    expect(forceExit).toHaveBeenCalledWith(130);
    finish(0);
  });
});
