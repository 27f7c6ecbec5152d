import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources, so tests never need a build.
export default defineConfig({
  resolve: { conditions: ['@protean-ts/source'] },
  ssr: { resolve: { conditions: ['@protean-ts/source'], externalConditions: ['@protean-ts/source'] } },
  // Fields declare their kind explicitly, so `design:type` metadata is never read; emitting it
  // breaks forward references (`shippingAddress?: Address` with Address declared later throws a
  // TDZ ReferenceError at class definition).
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: false } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.spec.ts'],
    testTimeout: 30000,
    hookTimeout: 60000,
    // Type-level tests (`*.test-d.ts`) prove the typed API: misspelt keys and wrong types do not compile.
    // Errors elsewhere in the package are `tsc`'s job (the typecheck task), not these tests'.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json', ignoreSourceErrors: true },
  },
});
