/** Timing helpers of the benchmark: throughput with a fixed number of callers in flight, and medians. */

export interface Measurement {
  /** Calls per second. */
  rate: number;
  /** CPU time this process spent per call (user + system), in microseconds. */
  cpuMicros: number;
}

/** Runs `total` calls of `one` with `concurrency` callers in flight. */
export async function measure(total: number, concurrency: number, one: () => Promise<void>): Promise<Measurement> {
  let started = 0;
  const cpuBefore = process.cpuUsage();
  const begin = performance.now();
  const worker = async (): Promise<void> => {
    while (started < total) {
      started += 1;
      await one();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - begin) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { rate: total / seconds, cpuMicros: (cpu.user + cpu.system) / total };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
