import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources, so tests never need a build.
export default defineConfig({
  resolve: { conditions: ['@protean-ts/source'] },
  ssr: { resolve: { conditions: ['@protean-ts/source'], externalConditions: ['@protean-ts/source'] } },
  // `design:type` is never read; emitting it breaks forward references in models (core's testing helpers).
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: false } },
  // Hang guards, not speed checks: e2e tests here start real processes, and CI runs them beside the
  // shop's e2e on two cores, where they take two to four times as long as alone.
  test: { include: ['src/**/*.test.ts', 'test/**/*.spec.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
});
