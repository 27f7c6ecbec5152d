/**
 * Vitest globalSetup of the projects whose tests spawn `protean-ts`: builds every package once
 * (`turbo run build`, cached, so a second run with unchanged sources takes a second or two), so the
 * spawned command is the compiled CLI a user installs. From the TypeScript sources each start-up
 * compiled some 400 modules through tsx: 1.6-2.7 s of CPU per spawn instead of 0.9 s, hundreds
 * of times per run.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPOSITORY = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
let built: Promise<void> | undefined;

export default async function buildPackages(): Promise<void> {
  built ??= build();
  await built;
}

async function build(): Promise<void> {
  const started = performance.now();
  try {
    await promisify(execFile)('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], {
      cwd: REPOSITORY,
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`building the packages for the tests that spawn protean-ts failed (run \`npm run build\` to see why):\n${stdout}${stderr}`);
  }
  console.log(`test setup: packages built (turbo run build) in ${Math.round(performance.now() - started)} ms`);
}
