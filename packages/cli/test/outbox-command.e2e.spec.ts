import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { runCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';

const up = await servicesUp(POSTGRES, REDIS);

describe.skipIf(!up)('protean-ts outbox status | list | retry', () => {
  let project: ServerProject;
  let abandonedId: string;
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd });

  beforeAll(async () => {
    project = await serverProject();
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
    await project.seed(['Ann', 'Bob']);
    // What the outbox processor does after a row used its last attempt (a message the broker refuses).
    const [row] = await project.query<{ id: string }>(
      `UPDATE protean_outbox SET status = 'abandoned', retry_count = max_retries, last_error = 'Broker "default" failed to publish: WRONGTYPE (test)'
       WHERE id = (SELECT min(id) FROM protean_outbox) RETURNING id::text AS id`,
    );
    abandonedId = row!.id;
  }, 90_000);
  afterAll(async () => {
    await project?.drop();
  });

  it('status counts rows by status per database, with the oldest pending age and a summary line', async () => {
    const { code, stdout } = await cli('outbox', 'status');
    expect(code).toBe(0);
    expect(stdout).toMatch(/\[databases\.default\] postgresql \(postgresql:\/\/postgres@127\.0\.0\.1:5432\/cli_[0-9a-f]+\)/);
    expect(stdout).toContain('pending 1  processing 0  published 0  failed 0  abandoned 1');
    expect(stdout).toMatch(/oldest pending: \d+(ms|s| ms)/);
    expect(stdout).toContain('outbox status: 1 database, 1 pending, 0 processing, 0 failed, 1 abandoned');
    const json = JSON.parse((await cli('outbox', 'status', '--json')).stdout) as Record<string, unknown>[];
    expect(json).toEqual([expect.objectContaining({ database: 'default', pending: 1, abandoned: 1, published: 0 })]);
  });

  it("a one-shot command keeps the domain's info logs off stderr unless PROTEAN_LOG_LEVEL asks for them", async () => {
    const quiet = await runCli(['outbox', 'status'], { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: undefined } });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('"msg":"domain initialized"');
    const chatty = await runCli(['outbox', 'status'], { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: 'info' } });
    expect(chatty.stderr).toContain('"msg":"domain initialized"');
    expect(chatty.stdout).toContain('outbox status: 1 database');
  });

  it('list --status abandoned shows the row with its error', async () => {
    const { code, stdout } = await cli('outbox', 'list', '--status', 'abandoned');
    expect(code).toBe(0);
    expect(stdout).toContain(`  ${abandonedId}  abandoned  Shop.PlaceOrder.v1 → default:shop::order:command`);
    expect(stdout).toContain('error: Broker "default" failed to publish: WRONGTYPE (test)');
    expect(stdout).toContain('outbox list: 1 row shown (status abandoned), at most 50 per database');
    const bad = await cli('outbox', 'list', '--status', 'lost');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--status must be one of pending, processing, published, failed, abandoned, scheduled, got "lost"');
  });

  it('retry says what it could not retry, and needs ids or --abandoned', async () => {
    const none = await cli('outbox', 'retry');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the ids of the rows to retry, or --abandoned');
    const unknown = await cli('outbox', 'retry', '987654');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('1 of 1 ids were not retried');
  });

  it('retry --abandoned puts the row back to pending, and a server then publishes everything', async () => {
    const { code, stdout } = await cli('outbox', 'retry', '--abandoned');
    expect(code).toBe(0);
    expect(stdout).toContain('[databases.default] 1 row back to pending');
    expect(stdout).toContain('outbox retry: 1 row back to pending');
    const server = await runCli(['server', '--test-mode'], { cwd: project.cwd, timeoutMs: 90_000 });
    expect(server.code, server.stderr).toBe(0);
    expect(await project.receipts()).toEqual(['Ann', 'Bob']);
    const json = JSON.parse((await cli('outbox', 'status', '--json')).stdout) as Record<string, unknown>[];
    expect(json[0]).toMatchObject({ pending: 0, abandoned: 0, published: 4, oldestPendingAgeMs: null });
  }, 90_000);
});
