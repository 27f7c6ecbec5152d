#!/usr/bin/env node
// Runs protean-ts from its TypeScript sources (monorepo, tests): no build step. tsx is registered
// exactly once, with a tsconfig covering both the CLI's sources and the user's domain, because a
// second registration (or tsImport) would compile or load modules twice. See docs/cli.md.
import { register } from 'node:module';

register('./source-conditions-hook.js', import.meta.url);
const { register: registerTsx } = await import('tsx/esm/api');
const cliTsconfig = new URL('../tsconfig.json', import.meta.url).pathname;

// Step 1: a provisional registration, only to run the bootstrap code (plain functions, which
// stay loaded and are shared with the CLI), then switched off.
const unregisterBootstrap = registerTsx({ tsconfig: cliTsconfig });
const { runtimeTsconfigForArgv } = await import('../src/typescript/bootstrap-typescript.ts');
const tsconfig = runtimeTsconfigForArgv(process.argv.slice(2), process.cwd(), process.env);
await unregisterBootstrap();

// Step 2: the one real registration, then the CLI itself.
registerTsx({ tsconfig });
globalThis[Symbol.for('protean-ts.cli.typescript-registered')] = tsconfig;
const { main } = await import('../src/main.ts');
const code = await main(process.argv);
process.exitCode = code;
// Open handles (pools, sockets) a command forgot must not keep a finished command alive.
process.stdout.write('', () => process.exit(code));
