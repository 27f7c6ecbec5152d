/**
 * `protean-ts status` for event-store subscriptions: the events behind the cursor while no server
 * runs, `--wait-drained` naming the subscription at the timeout, and exiting 0 once a server
 * has read its category up to the mark.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { LEDGER_DOMAIN, LEDGER_SEED, LEDGER_SUBSCRIPTION } from './ledger-project.js';
import { LogWatcher } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { stopServer } from './stop-server.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('protean-ts status with an event-store subscription', () => {
  let project: ServerProject;
  let server: ChildProcess | null = null;
  const cli = (...args: string[]) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000 });
  const handled = async () => Number((await project.query<{ n: string | null }>('SELECT sum(jsonb_array_length(seen::jsonb)) AS n FROM tally'))[0]?.n ?? 0);

  beforeAll(async () => {
    project = await serverProject({
      domain: LEDGER_DOMAIN,
      seed: LEDGER_SEED,
      root: ['enable_outbox = false'],
      server: ['default_subscription_type = "event_store"'],
      toml: '[server.event_store_subscription]\nlease_seconds = 2\npoll_interval_ms = 20\n',
    });
    const setup = await cli('db', 'setup');
    expect(setup.code, setup.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await stopServer(server);
    await project?.drop();
  }, 60_000);

  it('shows the events behind the cursor while no server runs, and --wait-drained names the subscription at the timeout', async () => {
    await project.seed(['3', '4', '2']);
    // A category read stops before events of transactions newer than the oldest one open anywhere
    // on the PostgreSQL server (another test file's, here), so for a moment fewer may show.
    const statusJson = async () => {
      const json = await cli('status', '--json');
      expect(json.code, json.stderr).toBe(0);
      return (JSON.parse(json.stdout) as { subscriptions: Record<string, unknown>[] }).subscriptions[0];
    };
    let subscription = await statusJson();
    for (const deadline = Date.now() + 30_000; subscription?.behind !== 12 && Date.now() < deadline;) subscription = await statusJson();
    expect(subscription).toMatchObject({
      source: 'event_store',
      subscription: LEDGER_SUBSCRIPTION,
      behind: 12,
      behindCapped: false,
      deadLetters: 0,
      owner: null,
    });

    const human = await cli('status');
    expect(human.stdout).toMatch(new RegExp(`${LEDGER_SUBSCRIPTION}\\s+event store\\s+\\S+::ledger\\s+12\\s+-\\s+0\\s+0\\s+no worker holds the lease`));

    const timedOut = await cli('status', '--wait-drained', '--timeout', '2', '--interval', '0.5');
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toMatch(
      new RegExp(`subscription ${LEDGER_SUBSCRIPTION} \\(event-store category "\\S+::ledger"\\): not handled up to \\d+/\\d+ yet`),
    );
  }, 120_000);

  it('--wait-drained exits 0 once a server has handled every event committed before the call', async () => {
    server = startCli(['server'], { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: 'info' } });
    const logs = new LogWatcher(server);
    await logs.waitFor((r) => r.msg === 'engine started', 90_000, 'the server started');
    const drained = await cli('status', '--wait-drained', '--timeout', '60');
    expect(drained.code, drained.stderr).toBe(0);
    expect(await handled()).toBe(12);
    const [subscription] = (JSON.parse((await cli('status', '--json')).stdout) as { subscriptions: Record<string, unknown>[] }).subscriptions;
    expect(subscription).toMatchObject({ behind: 0, owner: expect.any(String) });
  }, 120_000);
});
