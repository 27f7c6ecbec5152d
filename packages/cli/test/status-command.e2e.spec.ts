import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { LogWatcher } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, SHOP_DOMAIN, type ServerProject } from './server-project.js';
import { stopServer } from './stop-server.js';

const up = await servicesUp(POSTGRES, REDIS);

// The shop, whose command handler holds the customer "slow" until the test creates the file
// release-slow in the project: a backlog a running server has not handled yet, for as long as the test needs.
const SLOW_SHOP = `import { existsSync } from 'node:fs';\n${SHOP_DOMAIN}`.replace(
  '@handle(PlaceOrder) async place(command: PlaceOrder): Promise<void> {',
  "@handle(PlaceOrder) async place(command: PlaceOrder): Promise<void> {\n    while (command.customer === 'slow' && !existsSync('release-slow')) await new Promise((resolve) => setTimeout(resolve, 100));",
);

interface StatusJson {
  outboxes: { database: string; pending: number; processing: number; failed: number; published: number }[];
  subscriptions: {
    subscription: string;
    source: string;
    stream: string;
    exists: boolean;
    lag: number | null;
    pending: number;
    consumers: number | null;
    deadLetters: number | null;
  }[];
}

describe.skipIf(!up)('protean-ts status [--json] [--wait-drained]', () => {
  let project: ServerProject;
  let server: ChildProcess | null = null;
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000 });
  const orders = async () => (await project.query<{ customer: string }>('SELECT customer FROM "order" ORDER BY customer')).map((r) => r.customer);

  beforeAll(async () => {
    project = await serverProject({ domain: SLOW_SHOP });
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
  }, 90_000);
  afterAll(async () => {
    await stopServer(server);
    await project?.drop();
  }, 60_000);

  it('with no server running, shows the outbox backlog and every subscription', async () => {
    await project.seed(['Ann', 'Bob']);
    const json = await cli('status', '--json');
    expect(json.code, json.stderr).toBe(0);
    const status = JSON.parse(json.stdout) as StatusJson;
    expect(status.outboxes).toEqual([expect.objectContaining({ database: 'default', pending: 2, processing: 0, failed: 0, published: 0 })]);
    expect(status.subscriptions.map((s) => [s.subscription, s.source, s.stream, s.exists])).toEqual([
      ['OrderCommands', 'stream', 'shop::order:command', false],
      ['Receipts', 'stream', 'shop::order', false],
    ]);

    const human = await cli('status');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/DATABASE\s+PENDING\s+PROCESSING\s+FAILED\s+SCHEDULED\s+PUBLISHED\s+ABANDONED\s+OLDEST PENDING/);
    expect(human.stdout).toMatch(/ default\s+2\s+0\s+0\s+0\s+0\s+0\s+\d/);
    expect(human.stdout).toMatch(/OrderCommands\s+stream\s+default:shop::order:command\s+0\s+0\s+\?\s+0\s+no consumer group yet \(no server started it\)\n/);
    expect(human.stdout).toContain('status: 2 open outbox rows, 0 abandoned; 0 of 2 subscriptions behind; 0 dead letters');
  }, 90_000);

  it('--wait-drained exits 1 at the timeout, naming the outbox rows no server published', async () => {
    const { code, stderr } = await cli('status', '--wait-drained', '--timeout', '2', '--interval', '0.5');
    expect(code).toBe(1);
    expect(stderr).toContain('status: waiting');
    expect(stderr).toContain('status --wait-drained: not drained after 2 s; left:');
    expect(stderr).toContain('outbox of database "default": 2 of 2 rows not published yet');
  }, 90_000);

  it('--wait-drained exits 0 once a running server has handled what was committed before the call', async () => {
    server = startCli(['server'], { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: 'info' } });
    const logs = new LogWatcher(server);
    await logs.waitFor((r) => r.msg === 'engine started', 90_000, 'the server started');
    const { code, stdout, stderr } = await cli('status', '--wait-drained', '--timeout', '60');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('status: drained');
    // Drained means handled: the command handler has committed both orders.
    expect(await orders()).toEqual(['Ann', 'Bob']);
    const status = JSON.parse((await cli('status', '--json')).stdout) as StatusJson;
    expect(status.subscriptions.find((s) => s.subscription === 'OrderCommands')).toMatchObject({
      exists: true,
      lag: 0,
      pending: 0,
      consumers: 1,
      deadLetters: 0,
    });
  }, 120_000);

  it('--wait-drained names the subscription that has not handled its stream up to the mark, then drains once it has', async () => {
    await project.seed(['slow', 'Cid']);
    const timedOut = await cli('status', '--wait-drained', '--timeout', '8', '--interval', '0.5');
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toMatch(/subscription OrderCommands \(stream "shop::order:command"\): not handled up to \d+-\d+ yet/);
    expect(timedOut.stderr).not.toContain('outbox of database');
    // The slow message is still being handled: delivered, not acked.
    const during = JSON.parse((await cli('status', '--json')).stdout) as StatusJson;
    expect(during.subscriptions.find((s) => s.subscription === 'OrderCommands')!.pending).toBeGreaterThan(0);
    fs.writeFileSync(path.join(project.cwd, 'release-slow'), '');

    const drained = await cli('status', '--wait-drained', '--timeout', '60', '--json');
    expect(drained.code, drained.stderr).toBe(0);
    expect(JSON.parse(drained.stdout)).toMatchObject({ drained: true, step: 'drained', left: [] });
    expect(await orders()).toEqual(['Ann', 'Bob', 'Cid', 'slow']);
  }, 120_000);

  it('rejects a bad --timeout as a usage error', async () => {
    const { code, stderr } = await cli('status', '--wait-drained', '--timeout', '0');
    expect(code).toBe(2);
    expect(stderr).toContain('--timeout must be a number of seconds above 0 and at most 86400, got "0"');
  });
});
