/**
 * Finds the domain.toml of a domain: `.domain.toml` (a local, usually git-ignored override)
 * wins over `domain.toml`, first in the domain's own folder, then up to two parents, so a
 * domain under `src/` or `src/domain/` still finds the file at the project root.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONFIG_FILE_NAMES = ['.domain.toml', 'domain.toml'] as const;
/** How many parent folders above `searchFrom` are searched. */
export const CONFIG_SEARCH_PARENTS = 2;

/** Accepts a folder path, a file path, a `file:` URL string or a URL (e.g. `import.meta.url`). */
export function toSearchFolder(from: string | URL): string {
  const asPath = from instanceof URL || from.startsWith('file:') ? fileURLToPath(from) : path.resolve(from);
  try {
    return fs.statSync(asPath).isDirectory() ? asPath : path.dirname(asPath);
  } catch {
    // A module URL whose file is gone still names a folder worth searching.
    return path.extname(asPath) ? path.dirname(asPath) : asPath;
  }
}

/** The nearest config file, or null when none of the searched folders has one. */
export function discoverConfigFile(searchFrom: string | URL): string | null {
  let folder = toSearchFolder(searchFrom);
  for (let level = 0; level <= CONFIG_SEARCH_PARENTS; level++) {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = path.join(folder, name);
      if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
    }
    const parent = path.dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return null;
}
