/** Runs `total` calls of `one` with `concurrency` callers in flight and returns calls per second. */
export async function measure(total: number, concurrency: number, one: () => Promise<void>): Promise<number> {
  let started = 0;
  const begin = performance.now();
  const worker = async (): Promise<void> => {
    while (started < total) {
      started += 1;
      await one();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / ((performance.now() - begin) / 1000);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
