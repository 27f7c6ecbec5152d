import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { configureLogging, getLogger, type LogRecord } from '@protean-ts/core';
import { Supervisor, type SupervisorOptions } from '../src/supervisor/supervisor.js';

const workerScript = fileURLToPath(new URL('./fixtures/fixture-worker.mjs', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('Supervisor (real child processes)', () => {
  const records: LogRecord[] = [];
  let restore: ReturnType<typeof configureLogging> | null = null;
  let supervisor: Supervisor | null = null;

  function make(mode: string, overrides: Partial<SupervisorOptions> = {}, env: NodeJS.ProcessEnv = {}): Supervisor {
    restore ??= configureLogging({ sink: (_line, record) => records.push(record) });
    supervisor = new Supervisor({
      workers: 2,
      modulePath: workerScript,
      args: [],
      execArgv: [],
      env: { ...process.env, FIXTURE_MODE: mode, ...env },
      graceMs: 2000,
      restart: { initialDelayMs: 50, maxDelayMs: 200, crashLimit: 3, crashWindowMs: 10_000 },
      health: null,
      testMode: false,
      logger: getLogger('supervisor'),
      ...overrides,
    });
    return supervisor;
  }

  afterEach(async () => {
    await supervisor?.stop('test over');
    supervisor = null;
    if (restore) configureLogging(restore);
    restore = null;
    records.length = 0;
  });

  it('forks one process per worker with PROTEAN_WORKER_ID, reports their health, and stops them all with exit 0', async () => {
    const sup = make('normal');
    await sup.start();
    await until(() => sup.report().ready);
    const pids = sup.workerPids();
    expect(pids).toHaveLength(2);
    expect(new Set(pids).size).toBe(2);
    expect(sup.report().checks.map((c) => c.name)).toEqual(['worker:1', 'worker:1/subscription:A', 'worker:2', 'worker:2/subscription:A']);
    expect(await sup.stop('SIGTERM')).toBe(0);
    expect(pids.some(alive)).toBe(false);
    expect(await sup.done).toBe(0);
  });

  it("carries a worker's open circuit into the supervisor's /readyz notes and /healthz, staying ready", async () => {
    const sup = make('circuit', { health: { host: '127.0.0.1', port: 0 } });
    await sup.start();
    await until(() => sup.report().ready && sup.report().checks.some((c) => c.note));
    const base = `http://127.0.0.1:${sup.boundHealthPort}`;
    const readyz = await fetch(`${base}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toMatchObject({ status: 'ready', notes: { 'worker:2/subscription:A': 'circuit open (GatewayDownError: no answer)' } });
    const healthz = (await (await fetch(`${base}/healthz`)).json()) as { checks: { name: string; note?: string }[] };
    expect(healthz.checks.find((c) => c.name === 'worker:2/subscription:A')?.note).toBe('circuit open (GatewayDownError: no answer)');
    expect(healthz.checks.find((c) => c.name === 'worker:1/subscription:A')?.note).toBeUndefined();
  });

  it('restarts a worker killed with SIGKILL and logs it', async () => {
    const sup = make('normal');
    await sup.start();
    await until(() => sup.workerPids().length === 2);
    const [first] = sup.workerPids();
    process.kill(first!, 'SIGKILL');
    await until(() => sup.workerPids().length === 2 && !sup.workerPids().includes(first!));
    const crash = records.find((r) => r.msg === 'worker crashed; restarting');
    expect(crash).toMatchObject({ workerId: 1, exit: 'signal SIGKILL', restartInMs: 50 });
    expect(records.filter((r) => r.msg === 'worker started' && r.workerId === 1)).toHaveLength(2);
  });

  it('gives up and exits 1 when a worker crash-loops, saying so', async () => {
    const sup = make('crash');
    await sup.start();
    expect(await sup.done).toBe(1);
    const giveUp = records.find((r) => r.msg === 'worker is crash-looping; supervisor gives up');
    expect(giveUp).toMatchObject({ crashes: 3, exit: 'code 3' });
    expect(sup.workerPids()).toEqual([]);
  });

  it('sends SIGKILL to a worker that ignores SIGTERM past the grace period and exits 1', async () => {
    const sup = make('stubborn', { graceMs: 300 });
    await sup.start();
    await until(() => sup.report().ready);
    const pids = sup.workerPids();
    const started = Date.now();
    expect(await sup.stop('SIGTERM')).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(pids.some(alive)).toBe(false);
    expect(records.some((r) => r.msg === 'workers did not stop within the grace period; sending SIGKILL')).toBe(true);
  });

  it('in test mode, finishes with 0 when every worker drained and 1 when one failed, restarting nothing', async () => {
    const ok = make('drain', { testMode: true });
    await ok.start();
    expect(await ok.done).toBe(0);
    const failing = make('drain', { testMode: true }, { FIXTURE_FAIL_2: '1' });
    await failing.start();
    expect(await failing.done).toBe(1);
    expect(records.some((r) => r.msg === 'worker crashed; restarting')).toBe(false);
  });
});
