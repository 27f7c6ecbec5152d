/**
 * Test mode's finish line: polls every probe (each outbox, each subscription's consumer group)
 * and resolves once all of them report idle for several consecutive checks, or, past the
 * timeout, reports what is still busy. Consecutive checks guard against the gap between a
 * handler committing new outbox rows and the outbox processor publishing them.
 */
import { abortableSleep } from '../subscriptions/abortable-sleep.js';

export interface DrainProbe {
  name: string;
  /** Null when idle, else what is still outstanding (`3 pending`). Throwing counts as busy. */
  busy(): Promise<string | null>;
}

export type DrainResult = { drained: true; checks: number } | { drained: false; busy: string[] };

export interface DrainMonitorOptions {
  probes: readonly DrainProbe[];
  intervalMs: number;
  /** Consecutive all-idle checks needed. */
  quietChecks: number;
  timeoutMs: number;
  signal: AbortSignal;
}

export async function waitUntilDrained(options: DrainMonitorOptions): Promise<DrainResult> {
  const deadline = Date.now() + options.timeoutMs;
  let quiet = 0;
  let checks = 0;
  let busy: string[] = [];
  while (!options.signal.aborted) {
    checks += 1;
    busy = await busyProbes(options.probes);
    quiet = busy.length === 0 ? quiet + 1 : 0;
    if (quiet >= options.quietChecks) return { drained: true, checks };
    if (Date.now() >= deadline) return { drained: false, busy };
    await abortableSleep(options.intervalMs, options.signal);
  }
  return { drained: false, busy: busy.length ? busy : ['stopped before the streams drained'] };
}

async function busyProbes(probes: readonly DrainProbe[]): Promise<string[]> {
  const results = await Promise.all(
    probes.map(async (probe) => {
      try {
        const what = await probe.busy();
        return what === null ? null : `${probe.name}: ${what}`;
      } catch (err) {
        return `${probe.name}: ${err instanceof Error ? err.message : String(err)}`;
      }
    }),
  );
  return results.filter((r): r is string => r !== null);
}
