/**
 * Temp projects outside the repository that get the packed tarballs installed with npm, the
 * way a user installs protean-ts: third-party dependencies come from the registry (npm's cache
 * first, so a machine that ran `npm ci` needs no network).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { run } from './run.js';

/** A new empty folder under the system temp folder; removed with `removeTempFolders()`. */
const created: string[] = [];
export function tempFolder(prefix: string): string {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(folder);
  return folder;
}

export function removeTempFolders(): void {
  for (const folder of created.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
}

/** Installs the packed tarballs (every one, or those of `only`) into `folder` (which has a package.json) and reports how long it took. */
export async function installTarballs(folder: string, only?: readonly string[]): Promise<{ ms: number }> {
  const tarballs = inject('packed')
    .filter((p) => !only || only.includes(p.name))
    .map((p) => p.tarball);
  if (only && tarballs.length !== only.length) throw new Error(`installTarballs: no packed tarball for some of ${only.join(', ')}`);
  const started = performance.now();
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: folder });
  const ms = Math.round(performance.now() - started);
  console.log(`pack-check: npm install of ${tarballs.length} tarballs into ${path.basename(folder)} took ${ms} ms`);
  return { ms };
}

/** The installed `protean-ts` command of a project. */
export function proteanBin(folder: string): string {
  return path.join(folder, 'node_modules/.bin/protean-ts');
}

/** The lines of `npm ls --all` in `folder` that name a test runner (vitest, fast-check, jest), installed or an unmet peer. */
export async function testRunnersInTree(folder: string): Promise<string[]> {
  const { stdout } = await run('npm', ['ls', '--all'], { cwd: folder, allowFailure: true });
  return stdout
    .split('\n')
    .filter((line) => /vitest|fast-check|jest/i.test(line))
    .map((line) => line.trim());
}
