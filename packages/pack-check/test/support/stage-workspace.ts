/**
 * A private copy of the publishable packages to build and pack, under a temp folder laid out like
 * the repository. Building there never rewrites the checkout's dist/ folders, which other test
 * files running at the same time (the CLI's bin prefers dist/) would read half-written.
 * Third-party dependencies are links to the checkout's node_modules; @protean-ts packages are
 * links to the copies, so each copy compiles against its siblings' fresh builds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPOSITORY_ROOT, type WorkspacePackage } from './workspace-packages.js';
import { run } from './run.js';

const NOT_COPIED = new Set(['node_modules', 'dist', '.turbo']);

export interface StagedPackage extends WorkspacePackage {
  /** The package's copy inside the stage. */
  staged: string;
}

export function stageWorkspace(packages: WorkspacePackage[]): { root: string; packages: StagedPackage[] } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'protean-stage-')));
  fs.copyFileSync(path.join(REPOSITORY_ROOT, 'tsconfig.base.json'), path.join(root, 'tsconfig.base.json'));
  const modules = path.join(root, 'node_modules');
  fs.mkdirSync(path.join(modules, '@protean-ts'), { recursive: true });
  const repositoryModules = path.join(REPOSITORY_ROOT, 'node_modules');
  for (const entry of fs.readdirSync(repositoryModules)) {
    if (entry === '@protean-ts') continue;
    fs.symlinkSync(path.join(repositoryModules, entry), path.join(modules, entry));
  }
  // Private workspaces (test kits) stay links to the checkout: only publishable ones are rebuilt.
  for (const entry of fs.readdirSync(path.join(repositoryModules, '@protean-ts'))) {
    if (!packages.some((pkg) => pkg.name === `@protean-ts/${entry}`)) {
      fs.symlinkSync(fs.realpathSync(path.join(repositoryModules, '@protean-ts', entry)), path.join(modules, '@protean-ts', entry));
    }
  }
  const staged = packages.map((pkg) => {
    const copy = path.join(root, 'packages', path.basename(pkg.folder));
    fs.cpSync(pkg.folder, copy, { recursive: true, filter: (source) => !NOT_COPIED.has(path.basename(source)) || path.dirname(source) !== pkg.folder });
    const own = path.join(pkg.folder, 'node_modules');
    if (fs.existsSync(own)) fs.symlinkSync(own, path.join(copy, 'node_modules'));
    fs.symlinkSync(copy, path.join(modules, pkg.name));
    return { ...pkg, staged: copy };
  });
  return { root, packages: staged };
}

/**
 * Runs each staged package's own `build` script, every package after the ones it depends on;
 * packages of one level (none depending on another) build side by side.
 */
export async function buildStaged(packages: StagedPackage[]): Promise<void> {
  for (const level of buildLevels(packages)) {
    await Promise.all(level.map((pkg) => run('npm', ['run', 'build', '--silent'], { cwd: pkg.staged })));
  }
}

function buildLevels(packages: StagedPackage[]): StagedPackage[][] {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const depth = new Map<StagedPackage, number>();
  const visiting = new Set<string>();
  const visit = (pkg: StagedPackage): number => {
    const known = depth.get(pkg);
    if (known !== undefined) return known;
    if (visiting.has(pkg.name)) throw new Error(`workspace packages depend on each other in a cycle through ${pkg.name}`);
    visiting.add(pkg.name);
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg.staged, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const names = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.devDependencies });
    const level = Math.max(-1, ...names.flatMap((name) => (byName.has(name) ? [visit(byName.get(name)!)] : []))) + 1;
    visiting.delete(pkg.name);
    depth.set(pkg, level);
    return level;
  };
  const levels: StagedPackage[][] = [];
  for (const pkg of packages) (levels[visit(pkg)] ??= []).push(pkg);
  return levels;
}
