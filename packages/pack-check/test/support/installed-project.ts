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

/** Installs every packed tarball into `folder` (which has a package.json) and reports how long it took. */
export async function installTarballs(folder: string): Promise<{ ms: number }> {
  const tarballs = inject('packed').map((p) => p.tarball);
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
