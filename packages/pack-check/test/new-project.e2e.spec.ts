/**
 * `protean-ts new` from the installed tarballs, end to end: the project it writes installs the
 * tarballs, typechecks and passes its own `npm test`; with PROTEAN_ENV=production its server
 * runs on PostgreSQL and Redis, started the way the docs say (`npm run server`), handles the
 * command `npm start` sends, and exits cleanly when SIGTERM reaches npm, as a deployment sends it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackgroundProcess, isAlive } from './support/background-process.js';
import { installTarballs, proteanBin, removeTempFolders, tempFolder } from './support/installed-project.js';
import { run } from './support/run.js';
import { isolatedServices, type Isolation } from './support/services.js';

const up = await servicesUp(POSTGRES, REDIS);

// Compiles only if the installed typings keep each query's answer type. The wrong @read must
// be refused too: an expect-error directive with no error under it fails the typecheck.
const TYPINGS_PROBE = `import { BaseQuery, BaseQueryHandler, field, read } from '@protean-ts/core';
import { domain, Order } from './domain.js';

export interface DrinkCount { drinks: number }

@domain.query({ partOf: Order })
export class DrinksOf extends BaseQuery<DrinkCount> {
  @field.string({ required: true }) customer!: string;
}

@domain.queryHandler({ partOf: Order })
export class DrinkQueries extends BaseQueryHandler {
  @read(DrinksOf)
  async drinksOf(query: DrinksOf): Promise<DrinkCount> {
    return { drinks: query.customer.length };
  }

  // @ts-expect-error the answer of DrinksOf is a DrinkCount, not a string
  @read(DrinksOf)
  wrong(_query: DrinksOf): string {
    return 'no';
  }
}

export async function drinks(customer: string): Promise<number> {
  const answer = await domain.dispatch(DrinksOf.create({ customer }));
  return answer.drinks;
}
`;

describe.skipIf(!up)('a project made by protean-ts new', () => {
  let launcher: string;
  let project: string;
  let services: Isolation | undefined;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The CLI that runs `new` comes from the tarballs too, installed in a folder of its own.
    launcher = tempFolder('protean-launcher-');
    fs.writeFileSync(path.join(launcher, 'package.json'), JSON.stringify({ name: 'launcher', private: true, type: 'module' }));
    await installTarballs(launcher);
    services = await isolatedServices('pack_check');
  });

  afterAll(async () => {
    await services?.drop();
    removeTempFolders();
  });

  it('is written by the installed command, which refuses a folder that is not empty', async () => {
    const parent = tempFolder('protean-new-');
    const { stdout } = await run(proteanBin(launcher), ['new', 'coffee-bar'], { cwd: parent });
    project = path.join(parent, 'coffee-bar');
    expect(stdout).toContain('cd coffee-bar');
    expect(stdout).toContain('npm run server');
    const again = await run(proteanBin(launcher), ['new', 'coffee-bar'], { cwd: parent, allowFailure: true });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`folder ${project} is not empty`);
  });

  it('installs the tarballs, typechecks and passes its own npm test', async () => {
    await installTarballs(project);
    await run('npm', ['run', 'typecheck'], { cwd: project });
    // The published declaration files carry what the docs promise the compiler checks: a
    // query's answer type reaches dispatch() and @read (they once lost it: `private` members'
    // types are dropped from .d.ts files, and dispatch() answered unknown).
    const probe = path.join(project, 'src/typings-probe.ts');
    fs.writeFileSync(probe, TYPINGS_PROBE);
    try {
      await run('npm', ['run', 'typecheck'], { cwd: project });
    } finally {
      fs.rmSync(probe);
    }
    // Its test runs on the embedded default, whatever PROTEAN_ENV this run was given.
    const { stdout } = await run('npm', ['test'], { cwd: project, env: { ...process.env, PROTEAN_ENV: undefined } });
    expect(stdout).toMatch(/Tests\s+.*2 passed/);
  });

  it('runs its server on PostgreSQL and Redis, handles a command, and stops on SIGTERM', async () => {
    // The production overlay, on this test's own database and stream prefix.
    const toml = path.join(project, 'domain.toml');
    const overlay = fs.readFileSync(toml, 'utf8').replace('provider = "redis"\n', `provider = "redis"\nstream_prefix = "${services!.streamPrefix}"\n`);
    expect(overlay).toContain('stream_prefix');
    fs.writeFileSync(toml, overlay);
    env = { ...process.env, PROTEAN_ENV: 'production', DATABASE_URL: services!.databaseUrl, HEALTH_PORT: String(await freePort()) };

    await run(proteanBin(project), ['db', 'setup'], { cwd: project, env });

    const server = new BackgroundProcess('npm', ['run', 'server'], { cwd: project, env });
    let serverPid = 0;
    try {
      await server.waitFor('"msg":"engine started"');
      const { stdout } = await run('npm', ['start'], { cwd: project, env });
      expect(stdout).toMatch(/order [0-9a-f-]+: SERVED/);
      await server.waitFor('barista: one flat white for Ada');

      // npm runs the script's `exec`ed server as its own child; SIGTERM goes to npm, as an orchestrator sends it.
      serverPid = Number(execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.pid)], { encoding: 'utf8' }).trim());
      expect(serverPid).toBeGreaterThan(0);
      server.signal('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(server.output).toContain('"reason":"SIGTERM"');
      expect(server.output).toContain('"msg":"engine stopped"');
      expect(isAlive(serverPid)).toBe(false);
    } finally {
      // A failed run must not leave the server behind (orphaned, it would outlive npm).
      if (isAlive(server.pid)) server.signal('SIGKILL');
      if (serverPid > 0 && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
    }
  });
});
