#!/usr/bin/env node
// The `protean-ts` command: runs the built CLI (dist/) when present, else the sources via the dev runner.
import fs from 'node:fs';

const built = new URL('../dist/main.js', import.meta.url);
if (fs.existsSync(built)) {
  const { main } = await import(built.href);
  const code = await main(process.argv);
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
} else {
  await import('./protean-ts-dev.js');
}
