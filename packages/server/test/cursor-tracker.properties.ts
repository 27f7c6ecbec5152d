/**
 * The resume cursor of event-store subscriptions, as a property: whatever order events finish
 * in (up to `concurrency` streams run at once), the settled cursor is always the event before the
 * first unfinished one in read order, so a worker resuming there never skips an event that was
 * not done. Run by cursor-tracker.property.unit.spec.ts (a fixed seed, the fast tier) and
 * cursor-tracker.property.load.spec.ts (a random seed, more runs; FC_RUNS, FC_SEED).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { START_CURSOR } from '@protean-ts/core';
import { propertyRun, type PropertyTier } from '@protean-ts/conformance';
import { CursorTracker } from '../src/subscriptions/cursor-tracker.js';

/** Events read in reader order (increasing transaction id, then global position), and the order they finish in. */
const scenario = fc.integer({ min: 1, max: 2500 }).chain((count) =>
  fc.tuple(
    fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 5 })), { minLength: count, maxLength: count }),
    fc.shuffledSubarray(
      Array.from({ length: count }, (_, i) => i),
      { minLength: 0, maxLength: count },
    ),
  ),
);

export function describeCursorTrackerProperties(tier: PropertyTier): void {
  describe('CursorTracker', () => {
    const run = propertyRun(tier, { seed: 20261125, fastRuns: 60, loadRuns: 600 });
    it(
      `settles on the last event of the finished prefix, whatever the finishing order (seed ${run.seed})`,
      () => {
        fc.assert(
          fc.property(scenario, ([steps, finishing]) => {
            // Build increasing cursors: a transaction id step (0 = same transaction) and a position step.
            let tx = 1;
            let gp = 0;
            const cursors = steps.map(([txStep, gpStep]) => {
              tx += txStep;
              gp += gpStep;
              return { transactionId: tx, globalPosition: gp };
            });
            const tracker = new CursorTracker(START_CURSOR);
            cursors.forEach((cursor, i) => tracker.read(String(i), cursor));
            const done = new Set<number>();
            let prefix = 0;
            for (const index of finishing) {
              tracker.done(String(index));
              done.add(index);
              while (done.has(prefix)) prefix += 1;
              expect(tracker.settled).toEqual(prefix === 0 ? START_CURSOR : cursors[prefix - 1]);
              expect(tracker.outstanding).toBe(cursors.length - prefix);
            }
            // Finishing an event twice, or one never read, changes nothing.
            const before = tracker.settled;
            if (finishing.length > 0) expect(tracker.done(String(finishing[0]))).toBe(false);
            expect(tracker.done('never-read')).toBe(false);
            expect(tracker.settled).toEqual(before);
          }),
          { ...run, verbose: 1 },
        );
        // 60 runs: about 1.5 s alone; a machine running the whole suite beside other work took 36 s once.
      },
      Math.max(120_000, run.numRuns * 2_000),
    );
  });
}
