/**
 * A throw-away project folder for driving the real `protean-ts` command: package.json with
 * "type": "module", node_modules/@protean-ts/core linked to this checkout, and the given files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CORE = fileURLToPath(new URL('../../../core', import.meta.url));

export function tempProject(files: Record<string, string>): { root: string; remove(): void } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'protean-db-')));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'temp-domain', private: true, type: 'module' }));
  fs.mkdirSync(path.join(root, 'node_modules/@protean-ts'), { recursive: true });
  fs.symlinkSync(CORE, path.join(root, 'node_modules/@protean-ts/core'), 'dir');
  for (const [relative, content] of Object.entries(files)) fs.writeFileSync(path.join(root, relative), content);
  return { root, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}
