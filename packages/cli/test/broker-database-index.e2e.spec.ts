/**
 * A Redis URI whose database index the server does not have: `protean-ts server` and every
 * command using the broker refuse to start, naming the masked URI's database and the fix,
 * instead of logging "connection restored" and running on database 0.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { runCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';

const up = await servicesUp(POSTGRES, REDIS);
const databases = up ? Number(execFileSync('redis-cli', ['CONFIG', 'GET', 'databases'], { encoding: 'utf8' }).split('\n')[1]) : 16;
const missing = databases + 83;
const refusal = `[brokers.default] uri: Redis at redis://127.0.0.1:6379/${missing} has no database ${missing}`;

describe.skipIf(!up)('a Redis URI naming a database the server does not have', () => {
  let project: ServerProject;
  beforeAll(async () => {
    project = await serverProject({ redisUri: `redis://127.0.0.1:6379/${missing}` });
  });
  afterAll(async () => {
    await project?.drop();
  });

  it('regression: protean-ts server exits 1 at once, naming the database and how to fix it', async () => {
    const started = Date.now();
    const { code, stderr } = await runCli(['server', '--grace', '5'], { cwd: project.cwd, timeoutMs: 60_000 });
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(stderr).toContain(refusal);
    expect(stderr).toContain('raise `databases` in redis.conf');
    expect(stderr).not.toContain('Redis connection restored');
    expect(stderr).not.toContain('"engine started"');
  }, 90_000);

  it('regression: a dlq command exits 1 with the same message', async () => {
    const { code, stderr } = await runCli(['dlq', 'list'], { cwd: project.cwd });
    expect(code).toBe(1);
    expect(stderr).toContain(refusal);
  }, 60_000);
});
