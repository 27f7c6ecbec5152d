/**
 * The sizes of the heavy outbox scenarios, read from the environment in this one place. The fast
 * tier runs a smoke size (still several relay processes, still a SIGKILL); the load tier runs
 * the full size. An environment variable, when set, wins in either tier.
 */

export type Tier = 'fast' | 'load';

export interface MultiprocessSize {
  /** Relay processes sharing the outbox (OUTBOX_MULTI_RELAYS: 3 fast, 4 load). */
  relays: number;
  /** Partition keys (OUTBOX_MULTI_KEYS: 100 fast, 500 load). */
  keys: number;
  /** Commits of one row per key; half before the relays start (OUTBOX_MULTI_ROUNDS: 10 fast, 40 load). */
  rounds: number;
}

export interface CrashSize {
  /** Partition keys (OUTBOX_CRASH_KEYS: 60 fast, 300 load). */
  keys: number;
  /** Rows per key (OUTBOX_CRASH_PER_KEY: 10 fast, 20 load). */
  perKey: number;
}

function size(name: string, defaults: Record<Tier, number>, tier: Tier, minimum = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return defaults[tier];
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < minimum) throw new Error(`${name} must be an integer >= ${minimum}, got ${JSON.stringify(raw)}`);
  return value;
}

export function multiprocessSize(tier: Tier): MultiprocessSize {
  return {
    // Two at least: the scenario is about relays competing for the same rows.
    relays: size('OUTBOX_MULTI_RELAYS', { fast: 3, load: 4 }, tier, 2),
    keys: size('OUTBOX_MULTI_KEYS', { fast: 100, load: 500 }, tier),
    rounds: size('OUTBOX_MULTI_ROUNDS', { fast: 10, load: 40 }, tier, 2),
  };
}

export function crashSize(tier: Tier): CrashSize {
  return {
    keys: size('OUTBOX_CRASH_KEYS', { fast: 60, load: 300 }, tier),
    perKey: size('OUTBOX_CRASH_PER_KEY', { fast: 10, load: 20 }, tier, 2),
  };
}
