/**
 * The user's tsconfig for a domain module: the nearest tsconfig.json walking up from the
 * module's folder, stopping at the filesystem root.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function findNearestTsconfig(fromFile: string): string | null {
  let folder = path.dirname(path.resolve(fromFile));
  for (;;) {
    const candidate = path.join(folder, 'tsconfig.json');
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

/** The tsconfig shipped with the CLI for domains that have none of their own. */
export function fallbackTsconfig(): string {
  // src/typescript/ and dist/typescript/ are both two folders below the package root.
  return fileURLToPath(new URL('../../tsconfig.domain-fallback.json', import.meta.url));
}
