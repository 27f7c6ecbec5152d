/**
 * `protean-ts new`: the files it writes for each --database/--broker choice, the exact versions
 * it pins, and the names, folders and choices it refuses, each by name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.js';
import { TOOLCHAIN } from '../src/scaffold/toolchain-versions.js';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

async function protean(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'protean-ts', ...args], {
    cwd,
    env: { ...process.env, PROTEAN_LOG_LEVEL: 'warn', ...env },
    io: { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) },
  });
  return { code, stdout, stderr };
}

function emptyFolder(): string {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'protean-new-unit-')));
  folders.push(folder);
  return folder;
}

const read = (folder: string, file: string) => fs.readFileSync(path.join(folder, file), 'utf8');
const cliManifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const rootManifest = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };

describe('protean-ts new', () => {
  it('writes a project pinned to exact versions, and prints the next commands', async () => {
    const cwd = emptyFolder();
    const { code, stdout } = await protean(['new', 'coffee-bar'], cwd);
    expect(code).toBe(0);
    expect(stdout).toMatch(/cd coffee-bar\n\s+npm install\n\s+npm test/);
    const project = path.join(cwd, 'coffee-bar');
    const manifest = JSON.parse(read(project, 'package.json')) as Record<string, Record<string, string>>;
    expect(manifest.dependencies).toEqual({ '@protean-ts/cli': cliManifest.version, '@protean-ts/core': cliManifest.version });
    expect(manifest.devDependencies).toEqual({
      '@types/node': rootManifest.devDependencies['@types/node'],
      tsx: cliManifest.dependencies.tsx,
      typescript: rootManifest.devDependencies.typescript,
      vitest: rootManifest.devDependencies.vitest,
    });
    expect(manifest.scripts!.server).toBe('exec protean-ts server');
    expect(read(project, 'tsconfig.json')).toMatch(/"experimentalDecorators": true[\s\S]*"useDefineForClassFields": false/);
    expect(read(project, 'src/domain.ts')).toContain("new Domain('CoffeeBar'");
    for (const file of ['src/main.ts', 'test/domain.test.ts', 'vitest.config.ts', 'Dockerfile', '.gitignore', 'README.md']) {
      expect(fs.existsSync(path.join(project, file)), file).toBe(true);
    }
  });

  it('writes the domain docs/getting-started.md explains, word for word', async () => {
    const cwd = emptyFolder();
    await protean(['new', 'coffee-bar'], cwd);
    const guide = fs.readFileSync(new URL('../../../docs/getting-started.md', import.meta.url), 'utf8');
    const documented = /```ts\n\/\/ src\/domain\.ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(documented).toBeDefined();
    expect(read(path.join(cwd, 'coffee-bar'), 'src/domain.ts')).toBe(documented);
    const documentedToml = /```toml\n# domain\.toml\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(read(path.join(cwd, 'coffee-bar'), 'domain.toml')).toBe(documentedToml);
  });

  it('keeps the toolchain it pins equal to the one protean-ts is built with', () => {
    for (const [name, version] of Object.entries(TOOLCHAIN)) expect(rootManifest.devDependencies[name], name).toBe(version);
  });

  it.each([
    ['postgresql', 'redis', { async: true, postgresql: true, redis: true }],
    ['postgresql', 'inline', { async: false, postgresql: true, redis: false }],
    ['memory', 'inline', { async: false, postgresql: false, redis: false }],
  ] as const)('--database %s --broker %s: the production overlay passes config check', async (database, broker, expected) => {
    const cwd = emptyFolder();
    expect((await protean(['new', 'app', '--database', database, '--broker', broker], cwd)).code).toBe(0);
    const project = path.join(cwd, 'app');
    const toml = read(project, 'domain.toml');
    expect(toml).toMatch(/^event_processing = "sync"\n\n\[databases\.default\]\nprovider = "memory"/m);
    expect(toml.includes('[production.databases.default]\nprovider = "postgresql"')).toBe(expected.postgresql);
    expect(toml.includes('[production.brokers.default]\nprovider = "redis"')).toBe(expected.redis);
    expect(
      toml.includes('[production]\n# Events are stored with the aggregates (the outbox); `protean-ts server` handles them.\nevent_processing = "async"'),
    ).toBe(expected.async);
    for (const env of [{ PROTEAN_ENV: 'development' }, { PROTEAN_ENV: 'production' }]) {
      const check = await protean(['config', 'check'], project, env);
      expect(check.code, check.stderr).toBe(0);
    }
  });

  it('takes a scoped name, and creates the folder without the scope', async () => {
    const cwd = emptyFolder();
    expect((await protean(['new', '@acme/order-desk'], cwd)).code).toBe(0);
    expect(JSON.parse(read(path.join(cwd, 'order-desk'), 'package.json')).name).toBe('@acme/order-desk');
    expect(read(path.join(cwd, 'order-desk'), 'src/domain.ts')).toContain("new Domain('OrderDesk'");
  });

  it('refuses a folder that is not empty, naming it and what is in it', async () => {
    const cwd = emptyFolder();
    fs.mkdirSync(path.join(cwd, 'taken'));
    fs.writeFileSync(path.join(cwd, 'taken', 'notes.txt'), 'mine');
    const { code, stderr } = await protean(['new', 'taken'], cwd);
    expect(code).toBe(1);
    expect(stderr).toContain(`folder ${path.join(cwd, 'taken')} is not empty (notes.txt)`);
    expect(read(path.join(cwd, 'taken'), 'notes.txt')).toBe('mine');
  });

  it('refuses a dangling symbolic link, naming the link and its missing target', async () => {
    const cwd = emptyFolder();
    fs.symlinkSync(path.join(cwd, 'gone'), path.join(cwd, 'linked'));
    const { code, stderr } = await protean(['new', 'linked'], cwd);
    expect(code).toBe(1);
    expect(stderr).toContain(`${path.join(cwd, 'linked')} is a symbolic link to ${path.join(cwd, 'gone')}, which does not exist`);
    expect(stderr).not.toContain('--verbose');
    expect(fs.readdirSync(cwd)).toEqual(['linked']);
  });

  it.each([
    [['new', 'Coffee_Bar'], 'project name "Coffee_Bar" is not a valid npm package name (name can no longer contain capital letters)'],
    [['new', '.hidden'], 'project name ".hidden" is not a valid npm package name (name cannot start with a period)'],
    [['new', 'app', '--database', 'mysql'], '--database must be one of memory, postgresql, got "mysql"'],
    [['new', 'app', '--broker', 'kafka'], '--broker must be one of inline, redis, got "kafka"'],
    [['new', 'app', '--database', 'memory'], '--database memory with --broker redis: a memory database lives inside one process'],
  ])('refuses %j by name', async (args, message) => {
    const cwd = emptyFolder();
    const { code, stderr } = await protean(args, cwd);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(fs.readdirSync(cwd)).toEqual([]);
  });
});
