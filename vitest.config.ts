/**
 * The one vitest configuration of the repository: a project per package, two tiers named by
 * file suffix. `npm test` runs the fast tier (every `*.spec.ts` and `src/**\/*.test.ts` but the
 * load files); `npm run test:load` sets PROTEAN_TEST_TIER=load and runs only `*.load.spec.ts`,
 * the heavy scenarios at full size. See CONTRIBUTING.md.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { LongestFirstSequencer } from './test-support/longest-first-sequencer.js';

const REPOSITORY = path.dirname(fileURLToPath(import.meta.url));

/** Projects whose tests spawn `protean-ts` run the compiled CLI: see the file. */
const BUILD_PACKAGES = path.join(REPOSITORY, 'test-support/build-packages.ts');

const LOAD_TIER = process.env.PROTEAN_TEST_TIER === 'load';
const LOAD_TIMEOUT_MS = 15 * 60_000;
const LOAD_FILES = 'test/**/*.load.spec.ts';
const FAST_FILES = ['src/**/*.test.ts', 'test/**/*.spec.ts'];

interface PackageProject {
  /** The folder, relative to the repository root. */
  root: string;
  /** Hang guards, not speed checks (timed assertions do not belong in tests). */
  testTimeout?: number;
  hookTimeout?: number;
  extra?: TestProjectInlineConfiguration['test'];
}

const PACKAGES: PackageProject[] = [
  // Its type-level tests (`test/types/*.test-d.ts`: misspelt keys and wrong types do not compile)
  // are proved by `npm run typecheck`, the tsc pass over every test file that `npm test` runs
  // first; a Vitest typecheck run of them was a second tsc pass, run last, alone.
  { root: 'packages/core' },
  { root: 'packages/mikro-orm', extra: { globalSetup: [BUILD_PACKAGES] } },
  { root: 'packages/redis' },
  { root: 'packages/rabbitmq' },
  { root: 'packages/nats' },
  { root: 'packages/outbox' },
  { root: 'packages/server' },
  { root: 'packages/testing' },
  // e2e tests here start real processes; under a loaded two-core machine they take two to four
  // times as long as alone.
  { root: 'packages/cli', testTimeout: 120_000, hookTimeout: 180_000, extra: { globalSetup: [BUILD_PACKAGES] } },
  // The tarballs are packed once, in globalSetup, from the packages just built, and shared by every test file.
  { root: 'packages/pack-check', testTimeout: 240_000, hookTimeout: 600_000, extra: { globalSetup: [BUILD_PACKAGES, 'test/support/pack-workspace.ts'] } },
  { root: 'examples/shop', hookTimeout: 240_000, extra: { globalSetup: [BUILD_PACKAGES] } },
];

function project({ root, testTimeout = 30_000, hookTimeout = 60_000, extra = {} }: PackageProject): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name: root.split('/')[1],
      root: path.join(REPOSITORY, root),
      include: LOAD_TIER ? [LOAD_FILES] : FAST_FILES,
      exclude: LOAD_TIER ? [] : [LOAD_FILES],
      // The load tier's tests run for minutes by design (20,000 property runs, full-size drains):
      // their guard is the CI's time limit, with this as a hang guard.
      testTimeout: LOAD_TIER ? Math.max(testTimeout, LOAD_TIMEOUT_MS) : testTimeout,
      hookTimeout: LOAD_TIER ? Math.max(hookTimeout, LOAD_TIMEOUT_MS) : hookTimeout,
      env: { PROTEAN_TEST_PACKAGE_ROOT: path.join(REPOSITORY, root) },
      setupFiles: [path.join(REPOSITORY, 'test-support/package-cwd.ts')],
      ...extra,
    },
  };
}

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources, so tests never need a build.
  resolve: { conditions: ['@protean-ts/source'] },
  ssr: { resolve: { conditions: ['@protean-ts/source'], externalConditions: ['@protean-ts/source'] } },
  // protean-ts decorators are legacy (experimental) decorators. Fields declare their kind, so
  // `design:type` is never read; emitting it breaks forward references between elements
  // (`shippingAddress?: Address` with Address declared later: a TDZ ReferenceError).
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: false } },
  test: {
    projects: PACKAGES.map(project),
    // A worker keeps the modules it has imported for the next file of the same project: importing
    // the framework's sources anew for each of 230 files took 424 s of the fast tier's workers'
    // time (core alone: 58 s isolated, 18 s not). Files leave no global state behind them
    // (timers restored, loggers reconfigured per test, a database or stream prefix per file).
    isolate: false,
    sequence: { sequencer: LongestFirstSequencer },
    // Most test files wait on real services and processes rather than compute; three at a time
    // keeps both cores busy (four thrashed: load average 15-24, CLI start-ups timing out). The load tier's scenarios each load the machine nearly on their own:
    // two at a time, so one's waits are the other's turn.
    maxWorkers: Number(process.env.PROTEAN_TEST_WORKERS ?? (LOAD_TIER ? 2 : 3)),
  },
});
