/**
 * Commits at a fixed rate (each commit its own transaction), noting when each commit returned.
 * Commits are started on schedule whatever the previous ones are doing, up to `maxInFlight`.
 */
export async function producePaced(
  ratePerSecond: number,
  total: number,
  commit: (i: number) => Promise<string>,
  maxInFlight = 64,
): Promise<Map<string, number>> {
  const committedAt = new Map<string, number>();
  const start = performance.now();
  let started = 0;
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  while (started < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) * ratePerSecond) / 1000) + 1);
    while (started < due && inFlight < maxInFlight) {
      const i = started++;
      inFlight += 1;
      pending.push(
        commit(i).then((messageId) => {
          committedAt.set(messageId, performance.now());
          inFlight -= 1;
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  return committedAt;
}
