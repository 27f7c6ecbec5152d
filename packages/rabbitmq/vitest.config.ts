import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources, so tests never need a build.
export default defineConfig({
  resolve: { conditions: ['@protean-ts/source'] },
  ssr: { resolve: { conditions: ['@protean-ts/source'], externalConditions: ['@protean-ts/source'] } },
  test: { include: ['src/**/*.test.ts', 'test/**/*.spec.ts'], testTimeout: 30000, hookTimeout: 60000 },
});
