/**
 * BENCH_PROFILE=<dir>: a V8 CPU profile of each timed round (only the round, not the prefill),
 * written as `<dir>/<side>-k<keys>-r<round>.cpuprofile`; `profile-summary.ts` groups it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';

const DIR = process.env.BENCH_PROFILE;

export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!DIR) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // 250 µs instead of the 1 ms default: per-message work is in the tens of microseconds.
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(DIR, { recursive: true });
    writeFileSync(join(DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
