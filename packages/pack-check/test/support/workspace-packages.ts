/**
 * The publishable packages of this repository: every packages/* folder whose package.json is not
 * private, found when asked, so a package added later is packed and checked without a change here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

export interface WorkspacePackage {
  name: string;
  version: string;
  folder: string;
}

export function publishablePackages(): WorkspacePackage[] {
  const packagesDir = path.join(REPOSITORY_ROOT, 'packages');
  return fs
    .readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(packagesDir, entry.name, 'package.json')))
    .map((entry) => {
      const folder = path.join(packagesDir, entry.name);
      const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { name: string; version: string; private?: boolean };
      return { manifest, folder };
    })
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ manifest, folder }) => ({ name: manifest.name, version: manifest.version, folder }));
}
