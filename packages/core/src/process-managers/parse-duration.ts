/**
 * Durations for timeouts: a number of milliseconds, or `<n>ms`, `<n>s`, `<n>m`, `<n>h`, `<n>d`
 * (n may have decimals: '1.5h'; a day is 24 hours). Anything else is refused, so a typo never
 * schedules "now".
 */
import { InvalidDurationError } from '../errors/invalid-duration.error.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(value: unknown, what = 'duration'): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new InvalidDurationError(what, value);
    return value;
  }
  if (typeof value !== 'string') throw new InvalidDurationError(what, value);
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  if (!match) throw new InvalidDurationError(what, value);
  return Math.round(Number(match[1]) * UNIT_MS[match[2]!]!);
}
