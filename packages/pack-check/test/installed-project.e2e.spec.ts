/**
 * The tarballs installed into an empty project with npm, as a user installs them: the dependency
 * tree is complete (peers included), every entry point imports in plain Node, the installed
 * `protean-ts` runs, and stack traces through the installed code, with or without source maps,
 * name files that exist. Core installed alone pulls in no test runner.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installTarballs, proteanBin, removeTempFolders, tempFolder, testRunnersInTree } from './support/installed-project.js';
import { run } from './support/run.js';
import { stackFiles } from './support/stack-frames.js';

/** Entry points that import vitest (an optional peer the empty project does not have). */
const NEEDS_VITEST = new Set(['@protean-ts/conformance']);

let project: string;

beforeAll(async () => {
  project = tempFolder('protean-installed-');
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'empty-project', private: true, type: 'module' }));
  await installTarballs(project);
});

afterAll(removeTempFolders);

describe('the tarballs in an empty project', () => {
  it('install a complete dependency tree: no missing or invalid dependency, peers included', async () => {
    const { stdout } = await run('npm', ['ls', '--all', '--json'], { cwd: project });
    const tree = JSON.parse(stdout) as { problems?: string[] };
    expect(tree.problems ?? []).toEqual([]);
    // One copy of core for everything: the adapters take it as a peer.
    const { stdout: cores } = await run('npm', ['ls', '@protean-ts/core', '--all', '--parseable'], { cwd: project });
    expect(new Set(cores.split('\n').filter(Boolean)).size).toBe(1);
    // The conformance suites take vitest and fast-check as their peers: the check below sees them.
    expect(await testRunnersInTree(project)).toEqual(expect.arrayContaining([expect.stringMatching(/vitest/), expect.stringMatching(/fast-check/)]));
  });

  it('but @protean-ts/core installed alone pulls in no test runner, not even as a peer', async () => {
    const alone = tempFolder('protean-core-alone-');
    fs.writeFileSync(path.join(alone, 'package.json'), JSON.stringify({ name: 'core-alone', private: true, type: 'module' }));
    await installTarballs(alone, ['@protean-ts/core']);
    const { stdout } = await run('npm', ['ls', '--all'], { cwd: alone });
    expect(stdout).toContain('@protean-ts/core@');
    expect(await testRunnersInTree(alone)).toEqual([]);
  });

  it('import every entry point in plain Node (but the conformance suites: they need vitest, an optional peer)', async () => {
    const entries = inject('packed').flatMap(({ name }) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', name, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
      return Object.keys(manifest.exports ?? {}).map((subpath) => (subpath === '.' ? name : `${name}/${subpath.slice(2)}`));
    });
    expect(entries).toContain('@protean-ts/core');
    expect(entries).toContain('@protean-ts/conformance/fixtures');
    const runnerFree = entries.filter((entry) => !NEEDS_VITEST.has(entry));
    const script = `for (const entry of ${JSON.stringify(runnerFree)}) await import(entry);`;
    await run('node', ['--input-type=module', '-e', script], { cwd: project });
  });

  it('run the installed protean-ts command', async () => {
    const { stdout } = await run(proteanBin(project), ['--version'], { cwd: project });
    expect(stdout.trim()).toBe(inject('packed').find((p) => p.name === '@protean-ts/cli')!.version);
  });

  it('give stack traces that name files which exist, through source maps or not', async () => {
    fs.writeFileSync(
      path.join(project, 'trace.mjs'),
      `import { Domain } from '@protean-ts/core';
try { await new Domain('Trace').init({ configPath: 'missing.toml' }); } catch (error) { console.log(error.stack); }
`,
    );
    for (const flags of [[], ['--enable-source-maps']]) {
      const { stdout } = await run('node', [...flags, 'trace.mjs'], { cwd: project });
      const coreFrames = stackFiles(stdout).filter((file) => file.includes('node_modules/@protean-ts/core/'));
      expect(coreFrames.length, stdout).toBeGreaterThan(0);
      if (flags.length)
        expect(
          coreFrames.every((file) => file.endsWith('.ts')),
          stdout,
        ).toBe(true);
      expect(coreFrames.filter((file) => !fs.existsSync(file))).toEqual([]);
    }
    // The installed command's --verbose trace goes through cli and core.
    const { stderr } = await run(proteanBin(project), ['--verbose', '--config', 'missing.toml', 'config', 'check'], { cwd: project, allowFailure: true });
    const frames = stackFiles(stderr).filter((file) => file.includes('node_modules/@protean-ts/'));
    expect(
      frames.some((file) => file.includes('/cli/')),
      stderr,
    ).toBe(true);
    expect(frames.filter((file) => !fs.existsSync(file))).toEqual([]);
  });
});
