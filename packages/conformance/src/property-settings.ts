/**
 * How many runs a fast-check property makes and from which seed, read from the environment in
 * this one place so every property suite scales the same way. By default a property runs its own
 * fixed seed and modest run count, so a red run repeats as it is; the load tier re-runs the same
 * properties with more runs and a random seed.
 *
 * - `FC_RUNS=<n>` sets the runs of every property (in either tier).
 * - `FC_SEED=<n>` sets the seed of every property; `FC_SEED=random` draws one per test file.
 *
 * fast-check prints the seed of a failing run (`{ seed: …, path: … }`), and tests put it in their
 * titles: `FC_SEED=<that seed>` repeats the run.
 */

/** Which tier a property runs in: `fast` (`npm test`) or `load` (`npm run test:load`). */
export type PropertyTier = 'fast' | 'load';

export interface PropertyDefaults {
  /** The seed of the fast tier. */
  seed: number;
  /** Runs in the fast tier: seconds' worth, not a stamina run. */
  fastRuns: number;
  /** Runs in the load tier, which draws a random seed. */
  loadRuns: number;
}

/** fast-check's `seed` and `numRuns`. */
export interface PropertyRun {
  seed: number;
  numRuns: number;
}

let drawnSeed: number | undefined;

/** FC_RUNS when set, otherwise `defaultRuns`. */
export function propertyRuns(defaultRuns: number): number {
  const raw = process.env.FC_RUNS;
  if (raw === undefined || raw === '') return defaultRuns;
  const runs = Number(raw);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`FC_RUNS must be a whole number of runs, at least 1; got ${JSON.stringify(raw)}`);
  return runs;
}

/** FC_SEED when set (a number, or `random`), otherwise `defaultSeed`. One random seed per test file. */
export function propertySeed(defaultSeed: number | 'random'): number {
  const raw = process.env.FC_SEED;
  const chosen = raw === undefined || raw === '' ? defaultSeed : raw === 'random' ? 'random' : Number(raw);
  if (chosen === 'random') return (drawnSeed ??= Math.floor(Math.random() * 2 ** 31));
  if (!Number.isSafeInteger(chosen)) throw new Error(`FC_SEED must be an integer or "random"; got ${JSON.stringify(raw)}`);
  return chosen;
}

/** The seed and runs of a property in `tier`: the fixed seed and fast runs, or a random seed and load runs. */
export function propertyRun(tier: PropertyTier, defaults: PropertyDefaults): PropertyRun {
  return tier === 'fast'
    ? { seed: propertySeed(defaults.seed), numRuns: propertyRuns(defaults.fastRuns) }
    : { seed: propertySeed('random'), numRuns: propertyRuns(defaults.loadRuns) };
}
