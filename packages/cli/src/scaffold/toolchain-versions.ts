/**
 * The exact versions a new project pins: the protean-ts packages at this CLI's own version (they
 * are released together) and the toolchain protean-ts itself is built and tested with.
 */
import fs from 'node:fs';
import { cliVersion } from '../version.js';

/** Kept equal to the repository's root devDependencies by test/scaffold-versions.unit.spec.ts. */
export const TOOLCHAIN = {
  typescript: '5.9.3',
  vitest: '4.1.12',
  '@types/node': '20.19.43',
} as const;

export interface ProjectVersions {
  protean: string;
  typescript: string;
  tsx: string;
  vitest: string;
  typesNode: string;
}

export function projectVersions(): ProjectVersions {
  const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  // The CLI runs TypeScript domains with its own tsx; the project's scripts use the same one.
  const tsx = manifest.dependencies?.tsx;
  if (!tsx) throw new Error('@protean-ts/cli package.json lists no tsx dependency');
  return { protean: cliVersion(), typescript: TOOLCHAIN.typescript, tsx, vitest: TOOLCHAIN.vitest, typesNode: TOOLCHAIN['@types/node'] };
}
