import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { eventually } from './eventually.js';
import { LogWatcher, type LogLine } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';

const up = await servicesUp(POSTGRES, REDIS);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function parentOf(pid: number): number {
  // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after the ')'.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

const isMsg = (msg: string, workerId?: number) => (r: LogLine) => r.msg === msg && (workerId === undefined || r.workerId === workerId);

describe('protean-ts server (memory database, inline broker)', () => {
  let project: ServerProject;
  beforeAll(async () => {
    project = await serverProject({ memory: true });
  });

  it('refuses --workers 2 with in-process providers, naming each setting to change', async () => {
    const { code, stderr } = await runCli(['server', '--workers', '2'], { cwd: project.cwd });
    expect(code).toBe(1);
    expect(stderr).toContain('[databases.default] provider = "memory" lives inside one process; set provider = "postgresql"');
    expect(stderr).toContain('[brokers.default] provider = "inline" lives inside one process; set provider = "redis"');
    expect(stderr).not.toContain('--verbose');
    expect(stderr).not.toContain('PROTEAN_ENV');
  });

  it('says PROTEAN_ENV is not set when domain.toml has an environment table that would select shared infrastructure', async () => {
    const toml = path.join(project.cwd, 'domain.toml');
    const original = fs.readFileSync(toml, 'utf8');
    fs.writeFileSync(toml, `${original}\n[production.brokers.default]\nprovider = "redis"\nuri = "redis://127.0.0.1:6379"\n`);
    try {
      const { code, stderr } = await runCli(['server', '--workers', '2'], { cwd: project.cwd, env: { PROTEAN_ENV: undefined } });
      expect(code).toBe(1);
      expect(stderr).toContain(
        "PROTEAN_ENV is not set, so domain.toml's environment tables ([production]) are not in effect; PROTEAN_ENV=production selects one.",
      );
    } finally {
      fs.writeFileSync(toml, original);
    }
  });

  it('--test-mode starts every subscription, logs them by name and exits 0 once drained', async () => {
    const { code, stderr } = await runCli(['server', '--test-mode'], { cwd: project.cwd });
    expect(code).toBe(0);
    const started = stderr
      .split('\n')
      .filter((l) => l.includes('"engine started"'))
      .map((l) => JSON.parse(l) as LogLine)[0]!;
    expect(started.subscriptions).toEqual(['OrderCommands <- default:shop::order:command', 'Receipts <- default:shop::order']);
    expect(started.outboxProcessors).toEqual(['outbox-processor-default-to-default']);
    expect(stderr).toContain('test mode: every outbox and stream is drained');
  });

  it('rejects a bad --workers value as a usage error', async () => {
    const { code, stderr } = await runCli(['server', '--workers', '0'], { cwd: project.cwd });
    expect(code).toBe(2);
    expect(stderr).toContain('--workers must be a whole number of at least 1, got "0"');
  });
});

describe.skipIf(!up)('protean-ts server with PostgreSQL and Redis', () => {
  let project: ServerProject;
  beforeAll(async () => {
    project = await serverProject();
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
  });
  afterAll(async () => {
    await project?.drop();
  });

  it('--test-mode relays commands committed before it started through the outbox and Redis to the handlers, then exits 0', async () => {
    await project.seed(['Ann', 'Bob']);
    const { code, stderr } = await runCli(['server', '--test-mode', '--test-mode-timeout', '60'], { cwd: project.cwd });
    expect(code, stderr).toBe(0);
    expect(await project.receipts()).toEqual(['Ann', 'Bob']);
    const outbox = await project.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM protean_outbox GROUP BY status');
    // Two commands and two events, all published.
    expect(outbox).toEqual([{ status: 'published', n: '4' }]);
  }, 90_000);

  it('--workers 2: forks two workers, answers health for both, restarts a killed worker, and stops cleanly on SIGTERM', async () => {
    const child = startCli(['server', '--workers', '2', '--grace', '5', '--restart-delay', '100'], { cwd: project.cwd });
    const logs = new LogWatcher(child);
    try {
      await logs.waitFor(isMsg('worker ready', 1), 60_000, 'worker 1 ready');
      await logs.waitFor(isMsg('worker ready', 2), 60_000, 'worker 2 ready');
      const pids = [1, 2].map((id) => logs.find(isMsg('worker started', id))!.pid as number);
      // A process tree: both workers are children of the supervisor (the CLI process).
      for (const pid of pids) expect(parentOf(pid)).toBe(child.pid);
      // Every worker log line carries its worker id.
      expect(
        logs
          .filter(isMsg('engine started'))
          .map((r) => r.workerId)
          .sort(),
      ).toEqual([1, 2]);

      const url = logs.find((r) => r.msg === 'health endpoints listening' && r.logger === 'supervisor')!.url as string;
      const health = await eventually(async () => {
        const res = await fetch(`${url}/healthz`);
        return res.status === 200 ? ((await res.json()) as { checks: { name: string; ok: boolean }[] }) : null;
      });
      const names = health.checks.map((c) => c.name);
      expect(names).toEqual(
        expect.arrayContaining(['worker:1', 'worker:2', 'worker:1/subscription:Receipts', 'worker:2/database:default', 'worker:2/broker:default']),
      );
      expect((await fetch(`${url}/readyz`)).status).toBe(200);

      await project.seed(['Cat']);
      await eventually(async () => (await project.receipts()).includes('Cat'));

      process.kill(pids[0]!, 'SIGKILL');
      const crash = await logs.waitFor(isMsg('worker crashed; restarting', 1), 10_000, 'the crash of worker 1');
      expect(crash).toMatchObject({ exit: 'signal SIGKILL', restartInMs: 100 });
      await logs.waitFor((r) => r.msg === 'worker ready' && r.workerId === 1 && r.pid !== pids[0], 60_000, 'worker 1 restarted');
      const restarted = logs.filter(isMsg('worker started', 1)).map((r) => r.pid as number);
      expect(restarted).toHaveLength(2);

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const stopAt = Date.now();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - stopAt).toBeLessThan(15_000);
      for (const pid of [...pids, ...restarted]) expect(alive(pid)).toBe(false);
      expect(logs.filter(isMsg('worker stopped')).map((r) => r.exit)).toEqual(['code 0', 'code 0']);
      expect(logs.find(isMsg('supervisor stopped'))).toMatchObject({ exitCode: 0 });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 150_000);

  it('gives up with exit 1 when workers crash at start repeatedly, and says so', async () => {
    const { code, stderr } = await runCli(['server', '--workers', '2', '--restart-delay', '50', '--crash-limit', '2', '--crash-window', '120'], {
      cwd: project.cwd,
      env: { CRASH_WORKERS_AT_START: '1' },
      timeoutMs: 90_000,
    });
    expect(code).toBe(1);
    expect(stderr).toContain('this worker crashes at start (test)');
    expect(stderr).toContain('"msg":"worker is crash-looping; supervisor gives up"');
    expect(stderr).toContain('"crashes":2');
    expect(stderr).toContain('"msg":"worker crashed; restarting"');
  }, 90_000);
});
