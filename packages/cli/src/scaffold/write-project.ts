/**
 * Writes a new project into its folder: refuses a folder that has anything in it, so nothing a
 * user made is ever overwritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CliError } from '../cli-error.js';
import { DOCKERFILE, domainToml, GITIGNORE, packageJson, readme, TSCONFIG_JSON, VITEST_CONFIG } from './project-config-files.js';
import type { ProjectOptions } from './project-options.js';
import { DOMAIN_TEST, domainModule, MAIN_MODULE } from './project-source-files.js';
import type { ProjectVersions } from './toolchain-versions.js';

export function projectFiles(project: ProjectOptions, versions: ProjectVersions): Record<string, string> {
  return {
    'package.json': packageJson(project, versions),
    'tsconfig.json': TSCONFIG_JSON,
    'vitest.config.ts': VITEST_CONFIG,
    'domain.toml': domainToml(project),
    'src/domain.ts': domainModule(project),
    'src/main.ts': MAIN_MODULE,
    'test/domain.test.ts': DOMAIN_TEST,
    Dockerfile: DOCKERFILE,
    '.gitignore': GITIGNORE,
    'README.md': readme(project),
  };
}

/** Writes the files under `folder` and returns their paths, relative to it. */
export function writeProject(folder: string, files: Record<string, string>): string[] {
  refuseDanglingLink(folder);
  if (fs.existsSync(folder)) {
    if (!fs.statSync(folder).isDirectory()) throw new CliError(`${folder} exists and is not a folder; choose another project name`);
    const entries = fs.readdirSync(folder);
    if (entries.length > 0) {
      const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', …' : '');
      throw new CliError(`folder ${folder} is not empty (${shown}); choose another project name or empty the folder`);
    }
  }
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(folder, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return Object.keys(files);
}

/**
 * A symbolic link whose target is gone looks absent to `existsSync`, but no folder can be made
 * in its place: say which link points where, rather than let mkdir fail with a bare EEXIST.
 */
function refuseDanglingLink(folder: string): void {
  const link = fs.lstatSync(folder, { throwIfNoEntry: false });
  if (!link?.isSymbolicLink() || fs.existsSync(folder)) return;
  const target = fs.readlinkSync(folder);
  throw new CliError(
    `${folder} is a symbolic link to ${path.resolve(path.dirname(folder), target)}, which does not exist; ` +
      'create that folder, remove the link, or choose another project name',
  );
}
