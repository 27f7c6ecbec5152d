/** While the broker is unreachable: ping it after growing delays until it answers or the processor stops. */
import type { Broker } from '@protean-ts/core';
import type { Backoff } from './backoff-schedule.js';
import type { Waker } from './waker.js';

/** How long the pause lasted and how many pings it took; null when the processor stopped first. */
export async function probeUntilReachable(
  broker: Broker,
  backoff: Backoff,
  stopSignal: Waker,
  stopping: () => boolean,
): Promise<{ pausedMs: number; probes: number } | null> {
  const since = Date.now();
  let probes = 0;
  while (!stopping()) {
    await stopSignal.sleep(backoff.next());
    if (stopping()) return null;
    probes += 1;
    if (await broker.ping().catch(() => false)) return { pausedMs: Date.now() - since, probes };
  }
  return null;
}
