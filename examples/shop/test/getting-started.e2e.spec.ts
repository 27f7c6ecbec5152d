/**
 * docs/getting-started.md, followed to the letter in an empty folder: its files written as
 * shown, its commands run. Two things differ from a reader's machine, both because the packages
 * are this checkout's TypeScript sources rather than an npm install: node_modules links to the
 * monorepo's, and `tsx` gets a tsconfig that extends the guide's and also covers those sources.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '@protean-ts/cli/testing';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { filesAt, guideFiles } from './support/guide-files.js';
import { createRedisNamespace } from './support/redis-namespace.js';
import { createTempDatabase, type TempDatabase } from './support/temp-database.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const GUIDE = path.join(REPO, 'docs/getting-started.md');
const TSX_CLI = path.join(REPO, 'node_modules/tsx/dist/cli.mjs');
const TSC_CLI = path.join(REPO, 'node_modules/typescript/bin/tsc');

function newProject(): string {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'coffee-bar-')));
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'coffee-bar', private: true, type: 'module' }));
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  fs.writeFileSync(
    path.join(folder, 'tsconfig.sources.json'),
    JSON.stringify({ extends: './tsconfig.json', include: ['src', path.join(REPO, 'packages/*/src')] }),
  );
  return folder;
}

function writeFiles(folder: string, files: Map<string, string>): void {
  for (const [relative, content] of files) {
    fs.mkdirSync(path.dirname(path.join(folder, relative)), { recursive: true });
    fs.writeFileSync(path.join(folder, relative), content);
  }
}

/** `npx tsc` (with the source condition, so @protean-ts/* resolve to this checkout's sources) */
function typecheck(folder: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [TSC_CLI, '-p', 'tsconfig.json', '--customConditions', '@protean-ts/source'], { cwd: folder });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

/** `npx tsx src/main.ts` */
function runMain(folder: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [TSX_CLI, '--tsconfig', 'tsconfig.sources.json', '--conditions=@protean-ts/source', 'src/main.ts'], {
    cwd: folder,
    env: { ...process.env, PROTEAN_ENV: '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

const files = guideFiles(GUIDE);
const projects: string[] = [];
afterAll(() => {
  for (const folder of projects) fs.rmSync(folder, { recursive: true, force: true });
});

describe('docs/getting-started.md', () => {
  it('names the files a reader writes', () => {
    expect([...filesAt(files, 'last').keys()].sort()).toEqual(['domain.toml', 'src/domain.ts', 'src/main.ts', 'tsconfig.json']);
  });

  it('runs on the embedded default, and the CLI sees the domain (steps 1 to 4)', async () => {
    const folder = newProject();
    projects.push(folder);
    writeFiles(folder, filesAt(files, 'first'));

    expect(await typecheck(folder)).toEqual({ code: 0, output: '' });
    const main = await runMain(folder);
    expect(main.stderr).not.toContain('"level":"error"');
    expect(main.stdout).toMatch(/^barista: one flat white for Ada\norder [0-9a-f-]{36}: SERVED\n$/);

    const info = await runCli(['info'], { cwd: folder, env: { PROTEAN_ENV: undefined } });
    expect(info.code).toBe(0);
    expect(info.stdout).toContain('aggregate Order');
    expect(info.stdout).toMatch(/eventHandler: Barista/);
  }, 120_000);

  // Issue 10: with useDefineForClassFields left on, the program used to print "one flat white
  // for undefined"; without experimentalDecorators it failed with talk of symbols.
  it.each([
    ['useDefineForClassFields', 'false', /DecoratorSettingsError: Order: its fields customer, drink, status are defined as own properties/],
    ['experimentalDecorators', 'true', /DecoratorSettingsError: @field\.string\(\) on "customer": it was called as a standard \(TC39\) field decorator/],
  ])(
    'without "%s": %s in tsconfig.json the program stops with a DecoratorSettingsError naming it',
    async (option, value, error) => {
      const folder = newProject();
      projects.push(folder);
      const guide = filesAt(files, 'first');
      const tsconfig = guide.get('tsconfig.json')!;
      expect(tsconfig).toContain(`"${option}": ${value}`);
      guide.set('tsconfig.json', tsconfig.replace(new RegExp(`\\s*"${option}": ${value},?`), ''));
      writeFiles(folder, guide);
      const main = await runMain(folder);
      expect(main.code).not.toBe(0);
      expect(main.stdout).not.toContain('undefined');
      expect(main.stderr).toMatch(error);
      expect(main.stderr).toContain(`Set "${option}": ${value} in the "compilerOptions" of your tsconfig.json`);
    },
    120_000,
  );
});

describe.skipIf(!(await servicesUp(POSTGRES, REDIS)))('docs/getting-started.md with PostgreSQL and Redis (step 5)', () => {
  let folder: string;
  let db: TempDatabase;
  let env: Record<string, string>;
  // The guide uses no stream prefix: its streams are `coffee_bar::…`, cleared before and after.
  const clearStreams = async () => {
    const redis = await createRedisNamespace('unused');
    const keys = await redis.client.keys('coffee_bar::*');
    if (keys.length) await redis.client.del(...keys);
    await redis.drop();
  };

  beforeAll(async () => {
    folder = newProject();
    projects.push(folder);
    writeFiles(folder, filesAt(files, 'last'));
    db = await createTempDatabase('coffee_bar');
    await clearStreams();
    env = { PROTEAN_ENV: 'production', DATABASE_URL: db.uri, REDIS_URL: 'redis://127.0.0.1:6379', HEALTH_PORT: '0' };
  });

  afterAll(async () => {
    await db?.drop();
    await clearStreams();
  });

  it('sets up the database, runs the server with two workers, and the barista serves the order', async () => {
    const check = await runCli(['config', 'check'], { cwd: folder, env });
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('provider = "postgresql"');

    const setup = await runCli(['db', 'setup'], { cwd: folder, env });
    expect(setup.code).toBe(0);

    const server = startCli(['server', '--workers', '2'], { cwd: folder, env });
    let serverOut = '';
    let serverErr = '';
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => (serverOut += chunk));
    server.stderr!.setEncoding('utf8').on('data', (chunk: string) => (serverErr += chunk));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    try {
      await expect.poll(() => (serverErr.match(/"worker ready"/g) ?? []).length, { timeout: 90_000, interval: 200 }).toBe(2);

      const main = await runMain(folder, env);
      expect(main.stdout).toMatch(/order [0-9a-f-]{36}: SERVED\n$/);
      // The barista ran in a server worker, not in main.ts.
      expect(main.stdout).not.toContain('barista:');
      // In a server, console output becomes records of the `console` logger like every other line.
      const baristaRecord = () => (serverOut + serverErr).split('\n').find((line) => line.includes('barista: one flat white for Ada'));
      await expect.poll(baristaRecord, { timeout: 10_000 }).toBeDefined();
      expect(JSON.parse(baristaRecord()!)).toMatchObject({ logger: 'console', level: 'info', msg: 'barista: one flat white for Ada' });
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 240_000);
});
