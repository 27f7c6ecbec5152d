import { defineConfig } from 'vitest/config';

// The tarballs are built and packed once, in globalSetup, and shared by every test file.
export default defineConfig({
  resolve: { conditions: ['@protean-ts/source'] },
  ssr: { resolve: { conditions: ['@protean-ts/source'], externalConditions: ['@protean-ts/source'] } },
  test: {
    include: ['test/**/*.spec.ts'],
    globalSetup: ['test/support/pack-workspace.ts'],
    testTimeout: 240_000,
    hookTimeout: 600_000,
  },
});
