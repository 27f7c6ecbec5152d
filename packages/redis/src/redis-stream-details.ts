/** How `info()` describes one stream. */

/** A stream's line in `info()`: its length, and the entries each group lost to the hard limit, if any. */
export function streamDetails(length: unknown, lost: unknown): Record<string, unknown> {
  const losses = Object.entries((lost ?? {}) as Record<string, string>).map(([group, count]) => [group, Number(count)]);
  return { length: Number(length), ...(losses.length > 0 ? { lostToTrimming: Object.fromEntries(losses) } : {}) };
}
