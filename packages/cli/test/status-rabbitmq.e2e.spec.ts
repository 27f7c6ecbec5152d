/**
 * `status` and `status --wait-drained` on RabbitMQ, where the CLI holds no deliveries: with
 * `management_uri` the unacked message a running server's handler holds shows as pending and
 * keeps `--wait-drained` waiting until the handler is released; without it `status` shows pending
 * as unknown and `--wait-drained` says why it cannot tell, instead of claiming "drained".
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import {
  createRabbitmqVhost,
  deleteRabbitmqVhost,
  POSTGRES,
  RABBITMQ,
  RABBITMQ_MANAGEMENT,
  RABBITMQ_MANAGEMENT_URI,
  rabbitmqUri,
  servicesUp,
} from '@protean-ts/conformance';
import { RabbitMQBroker } from '@protean-ts/rabbitmq';
import { LogWatcher } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, SHOP_DOMAIN, type ServerProject } from './server-project.js';
import { stopServer } from './stop-server.js';

const up = await servicesUp(POSTGRES, RABBITMQ, RABBITMQ_MANAGEMENT);

// The shop, whose command handler holds the customer "slow" until the test creates the file
// release-slow in the project: a delivery a running server holds unacked for as long as the test needs.
const SLOW_SHOP = `import { existsSync } from 'node:fs';\n${SHOP_DOMAIN}`.replace(
  '@handle(PlaceOrder) async place(command: PlaceOrder): Promise<void> {',
  "@handle(PlaceOrder) async place(command: PlaceOrder): Promise<void> {\n    while (command.customer === 'slow' && !existsSync('release-slow')) await new Promise((resolve) => setTimeout(resolve, 100));",
);
if (!SLOW_SHOP.includes('release-slow')) throw new Error('status-rabbitmq e2e: the shop domain changed shape; update SLOW_SHOP');

interface StreamBacklogJson {
  subscription: string;
  pending: number;
  pendingLocalOnly?: true;
  lag: number | null;
  exists: boolean;
}

describe.skipIf(!up)('protean-ts status --wait-drained on RabbitMQ with management_uri', () => {
  let project: ServerProject;
  let vhost: string;
  let server: ChildProcess | null = null;
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000 });
  const orderCommands = async () => {
    const json = await cli('status', '--json');
    expect(json.code, json.stderr).toBe(0);
    return (JSON.parse(json.stdout) as { subscriptions: StreamBacklogJson[] }).subscriptions.find((s) => s.subscription === 'OrderCommands')!;
  };
  const orders = async () => (await project.query<{ customer: string }>('SELECT customer FROM "order" ORDER BY customer')).map((r) => r.customer);

  beforeAll(async () => {
    vhost = await createRabbitmqVhost('cli-status');
    project = await serverProject({
      domain: SLOW_SHOP,
      brokerLines: ['provider = "rabbitmq"', `uri = "${rabbitmqUri(vhost)}"`, `management_uri = "${RABBITMQ_MANAGEMENT_URI}"`],
    });
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await stopServer(server);
    await project?.drop();
    if (vhost) await deleteRabbitmqVhost(vhost);
  }, 60_000);

  it("shows the server's unacked delivery as pending, and --wait-drained exits 0 only after the handler holding it is released", async () => {
    server = startCli(['server'], { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: 'info' } });
    const logs = new LogWatcher(server);
    await logs.waitFor((r) => r.msg === 'engine started', 90_000, 'the server started');
    await project.seed(['slow']);

    // The management API's counts trail by up to a statistics interval (5 s).
    const deadline = Date.now() + 30_000;
    let held = await orderCommands();
    while (held.pending === 0 && Date.now() < deadline) held = await orderCommands();
    expect(held).toMatchObject({ exists: true, pending: 1 });
    expect(held.pendingLocalOnly).toBeUndefined();
    const human = await cli('status');
    expect(human.stdout).toMatch(/OrderCommands\s+stream\s+default:shop::order:command\s+\d+\s+1\s+/);

    const timedOut = await cli('status', '--wait-drained', '--timeout', '12', '--interval', '0.5');
    expect(timedOut.code, timedOut.stderr).toBe(1);
    expect(timedOut.stderr).toMatch(/subscription OrderCommands \(stream "shop::order:command"\): not handled up to at:\d+ yet/);

    const waiting = startCli(['status', '--wait-drained', '--timeout', '60', '--interval', '0.5'], { cwd: project.cwd });
    let stdout = '';
    waiting.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => waiting.once('exit', (code) => resolve(code)));
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(waiting.exitCode, 'status --wait-drained exited while the handler still held its message').toBeNull();
    fs.writeFileSync(path.join(project.cwd, 'release-slow'), '');
    expect(await exited).toBe(0);
    expect(stdout).toContain('status: drained');
    // Drained means handled: the handler committed the order before its message was acked.
    expect(await orders()).toEqual(['slow']);
  }, 180_000);
});

describe.skipIf(!up)('protean-ts status on RabbitMQ without management_uri', () => {
  let project: ServerProject;
  let vhost: string;
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000 });

  beforeAll(async () => {
    vhost = await createRabbitmqVhost('cli-status-amqp');
    project = await serverProject({ domain: SLOW_SHOP, brokerLines: ['provider = "rabbitmq"', `uri = "${rabbitmqUri(vhost)}"`] });
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
    // The groups a server would create, so there is a queue whose unacked messages go unseen.
    const broker = new RabbitMQBroker('setup', { provider: 'rabbitmq', uri: rabbitmqUri(vhost) });
    await broker.ensureGroup('shop::order:command', 'OrderCommands');
    await broker.ensureGroup('shop::order', 'Receipts');
    await broker.close();
  }, 120_000);
  afterAll(async () => {
    await project?.drop();
    if (vhost) await deleteRabbitmqVhost(vhost);
  });

  it('shows pending as unknown, naming the setting that would show it', async () => {
    const human = await cli('status');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /OrderCommands\s+stream\s+default:shop::order:command\s+0\s+\?\s+0\s+0\s+pending unknown: the broker shows only this process's unacked messages; set brokers\.default\.management_uri/,
    );
    expect(human.stdout).toContain('0 of 2 subscriptions behind (pending unknown for 2)');
    const json = JSON.parse((await cli('status', '--json')).stdout) as { subscriptions: StreamBacklogJson[] };
    expect(json.subscriptions.map((s) => [s.subscription, s.pending, s.pendingLocalOnly])).toEqual([
      ['OrderCommands', 0, true],
      ['Receipts', 0, true],
    ]);
  }, 60_000);

  it('--wait-drained never claims drained; it exits 1 at the timeout saying how to make it tell', async () => {
    const { code, stdout, stderr } = await cli('status', '--wait-drained', '--timeout', '3', '--interval', '0.5');
    expect(code).toBe(1);
    expect(stdout).not.toContain('drained');
    expect(stderr).toMatch(
      /subscription OrderCommands \(stream "shop::order:command"\): \[brokers\.default\] management_uri: is not set, and RabbitMQ cannot report the unacked messages other connections \(the workers\) hold over AMQP/,
    );
    expect(stderr).toContain('rabbitmq-plugins enable rabbitmq_management');
  }, 60_000);
});
