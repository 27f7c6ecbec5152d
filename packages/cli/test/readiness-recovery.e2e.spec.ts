/**
 * /readyz follows the services: after a Redis outage long enough for every back-off to grow
 * (reconnects, subscription back-off, the outbox processor's probe, the workers' reports), it
 * answers 200 again within about a second of Redis answering, for a single process and for the
 * supervisor answering for its workers. Before, it still said 503 eight seconds later.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, POSTGRES, REDIS, servicesUp, startRedisServer, stopProcess } from '@protean-ts/conformance';
import { eventually } from './eventually.js';
import { LogWatcher, type LogLine } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';

const up = await servicesUp(POSTGRES, REDIS);
const REDIS_VAR = 'READINESS_TEST_REDIS_URI';
/** Long enough for the subscription back-off to reach 8 s and the old probe ceilings (2 s, 5 s) to be hit. */
const OUTAGE_MS = 9_000;
const RECOVERY_BOUND_MS = 1_500;

const isMsg = (msg: string, workerId?: number) => (r: LogLine) => r.msg === msg && (workerId === undefined || r.workerId === workerId);

async function readyStatus(url: string): Promise<number> {
  return (await fetch(`${url}/readyz`)).status;
}

/** Milliseconds from now until /readyz answers 200, polled every 25 ms. */
async function msUntilReady(url: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if ((await readyStatus(url).catch(() => 0)) === 200) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Infinity;
}

describe.skipIf(!up)('readiness after a Redis outage', () => {
  let project: ServerProject;
  beforeAll(async () => {
    project = await serverProject({ redisUri: `\${${REDIS_VAR}|redis://127.0.0.1:6379}` });
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
  });
  afterAll(async () => {
    await project?.drop();
  });

  async function outageAndRecovery(args: string[], ready: (logs: LogWatcher) => Promise<unknown>, customer: string): Promise<void> {
    const port = await freePort();
    let redis: ChildProcess | null = await startRedisServer(port);
    const child = startCli(['server', '--grace', '5', ...args], { cwd: project.cwd, env: { [REDIS_VAR]: `redis://127.0.0.1:${port}` } });
    const logs = new LogWatcher(child);
    try {
      const url = (await logs.waitFor((r) => r.msg === 'health endpoints listening', 60_000, 'the health server')).url as string;
      await ready(logs);
      await eventually(async () => (await readyStatus(url)) === 200, 20_000, '/readyz 200 before the outage');

      await stopProcess(redis, 'SIGKILL');
      redis = null;
      await eventually(async () => (await readyStatus(url)) === 503, 10_000, '/readyz 503 during the outage');
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      expect(await readyStatus(url)).toBe(503);

      redis = await startRedisServer(port);
      const took = await msUntilReady(url, 15_000);
      expect(took, `/readyz answered 200 ${took} ms after Redis came back`).toBeLessThan(RECOVERY_BOUND_MS);

      // Ready means working: a command goes through the outbox, Redis and both handlers.
      await project.seed([customer]);
      await eventually(async () => (await project.receipts()).includes(customer), 30_000, `the receipt of ${customer}`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      if (redis) await stopProcess(redis);
    }
  }

  it('regression: a single process answers /readyz 200 within 1.5 s of Redis coming back', async () => {
    await outageAndRecovery([], (logs) => logs.waitFor(isMsg('engine started'), 60_000, 'the engine'), 'Ann');
  }, 120_000);

  it('regression: the supervisor answers /readyz 200 for both workers within 1.5 s of Redis coming back', async () => {
    const ready = async (logs: LogWatcher) => {
      await logs.waitFor(isMsg('worker ready', 1), 60_000, 'worker 1');
      await logs.waitFor(isMsg('worker ready', 2), 60_000, 'worker 2');
    };
    await outageAndRecovery(['--workers', '2'], ready, 'Bob');
  }, 120_000);
});
