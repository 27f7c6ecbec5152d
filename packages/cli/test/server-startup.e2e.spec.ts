/**
 * `protean-ts server` started while Redis or PostgreSQL is still down: it waits (alive, /readyz
 * 503 naming the service), starts once the service answers, and stops promptly on SIGTERM; under
 * the supervisor waiting workers are not crashes. Errors waiting cannot fix still exit 1 at once.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, POSTGRES, REDIS, servicesUp, startRedisServer, stopProcess } from '@protean-ts/conformance';
import { eventually } from './eventually.js';
import { LogWatcher, type LogLine } from './log-watcher.js';
import { runCli, startCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';
import { TcpProxy } from './tcp-proxy.js';

const up = await servicesUp(POSTGRES, REDIS);

// domain.toml points at these variables, defaulting to the shared services: `db setup` and the
// seed script use the shared ones, the server under test whatever the test sets.
const REDIS_VAR = 'STARTUP_TEST_REDIS_URI';
const POSTGRES_VAR = 'STARTUP_TEST_POSTGRES_URI';

const isMsg = (msg: string, workerId?: number) => (r: LogLine) => r.msg === msg && (workerId === undefined || r.workerId === workerId);

interface Readiness {
  status: number;
  failing: string[];
}

async function readyz(url: string): Promise<Readiness> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, failing: ((await res.json()) as { failing: string[] }).failing };
}

/** Waits until the `/healthz` check `name` reports a failed attempt number of at least `attempt`. */
async function failedAttempts(url: string, name: string, attempt: number): Promise<string> {
  return eventually(
    async () => {
      const body = (await (await fetch(`${url}/healthz`)).json()) as { checks: { name: string; detail?: string }[] };
      const detail = body.checks.find((c) => c.name === name)?.detail ?? '';
      const seen = Number(/not reachable \(attempt (\d+)\)/.exec(detail)?.[1] ?? 0);
      return seen >= attempt ? detail : null;
    },
    30_000,
    `${name} failing ${attempt} attempts`,
  );
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function stopWithSigterm(child: ChildProcess): Promise<{ code: number | null; tookMs: number }> {
  const exited = exitOf(child);
  const at = Date.now();
  child.kill('SIGTERM');
  const code = await exited;
  return { code, tookMs: Date.now() - at };
}

describe.skipIf(!up)('protean-ts server with a database or broker down at start', () => {
  let project: ServerProject;
  beforeAll(async () => {
    project = await serverProject({
      redisUri: `\${${REDIS_VAR}|redis://127.0.0.1:6379}`,
      databaseServerUri: `\${${POSTGRES_VAR}|postgresql://postgres@127.0.0.1:5432}`,
      toml: '[impatient.server]\nstartup_timeout_seconds = 2\n',
    });
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
  });
  afterAll(async () => {
    await project?.drop();
  });

  it('regression: waits for a Redis that is not up yet (alive, /readyz 503 naming the broker), then starts and handles a command end to end', async () => {
    const port = await freePort();
    const child = startCli(['server', '--grace', '5'], { cwd: project.cwd, env: { [REDIS_VAR]: `redis://127.0.0.1:${port}` } });
    const logs = new LogWatcher(child);
    let redis: ChildProcess | null = null;
    try {
      const url = (await logs.waitFor(isMsg('health endpoints listening'), 60_000, 'the health server')).url as string;
      const warn = await logs.waitFor(isMsg('waiting for broker'), 30_000, 'the first WARN');
      expect(warn).toMatchObject({ level: 'warn', broker: 'default', provider: 'redis', uri: `redis://127.0.0.1:${port}`, attempt: 1 });
      expect(warn.nextRetryInMs).toBeGreaterThan(0);
      expect(String(warn.error)).toContain('ECONNREFUSED');

      // Several attempts later it is still alive and still not ready, saying why.
      expect(await failedAttempts(url, 'broker:default', 4)).toContain('ECONNREFUSED');
      expect(child.exitCode).toBeNull();
      expect((await fetch(`${url}/livez`)).status).toBe(200);
      const waiting = await readyz(url);
      expect(waiting.status).toBe(503);
      expect(waiting.failing).toContain('broker:default');
      expect(waiting.failing).not.toContain('database:default');
      expect(logs.find(isMsg('engine started'))).toBeUndefined();

      redis = await startRedisServer(port);
      await logs.waitFor(isMsg('broker connected'), 30_000, 'the broker connecting');
      await logs.waitFor(isMsg('engine started'), 30_000, 'the engine starting');
      await eventually(async () => (await readyz(url)).status === 200, 20_000, '/readyz 200');

      await project.seed(['Ann']);
      await eventually(async () => (await project.receipts()).includes('Ann'), 30_000, 'the receipt of Ann');

      expect(await stopWithSigterm(child)).toMatchObject({ code: 0 });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      if (redis) await stopProcess(redis);
    }
  }, 120_000);

  it('regression: waits for a PostgreSQL that is not reachable yet, then starts and handles a command end to end', async () => {
    const proxy = new TcpProxy(await freePort(), { host: '127.0.0.1', port: 5432 });
    const child = startCli(['server', '--grace', '5'], {
      cwd: project.cwd,
      env: { [POSTGRES_VAR]: `postgresql://postgres@127.0.0.1:${proxy.port}` },
    });
    const logs = new LogWatcher(child);
    try {
      const url = (await logs.waitFor(isMsg('health endpoints listening'), 60_000, 'the health server')).url as string;
      const warn = await logs.waitFor(isMsg('waiting for database'), 30_000, 'the first WARN');
      expect(warn).toMatchObject({ level: 'warn', database: 'default', provider: 'postgresql', attempt: 1 });
      expect(String(warn.uri)).toContain(`127.0.0.1:${proxy.port}/`);

      await failedAttempts(url, 'database:default', 4);
      expect(child.exitCode).toBeNull();
      const waiting = await readyz(url);
      expect(waiting.status).toBe(503);
      expect(waiting.failing).toContain('database:default');
      expect(waiting.failing).not.toContain('broker:default');

      await proxy.start();
      await logs.waitFor(isMsg('database connected'), 30_000, 'the database connecting');
      await logs.waitFor(isMsg('engine started'), 30_000, 'the engine starting');
      await eventually(async () => (await readyz(url)).status === 200, 20_000, '/readyz 200');

      await project.seed(['Bob']);
      await eventually(async () => (await project.receipts()).includes('Bob'), 30_000, 'the receipt of Bob');

      expect(await stopWithSigterm(child)).toMatchObject({ code: 0 });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await proxy.stop();
    }
  }, 120_000);

  it('regression: SIGTERM while waiting for a service stops at once with exit 0', async () => {
    const port = await freePort();
    const child = startCli(['server', '--grace', '30'], { cwd: project.cwd, env: { [REDIS_VAR]: `redis://127.0.0.1:${port}` } });
    const logs = new LogWatcher(child);
    try {
      await logs.waitFor(isMsg('waiting for broker'), 60_000, 'the first WARN');
      const { code, tookMs } = await stopWithSigterm(child);
      expect(code).toBe(0);
      // Far below --grace: the wait is cut short, not run out.
      expect(tookMs).toBeLessThan(10_000);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);

  it('[server] startup_timeout_seconds: exits 1 naming the service that never came up', async () => {
    const port = await freePort();
    const { code, stderr } = await runCli(['server'], {
      cwd: project.cwd,
      env: { [REDIS_VAR]: `redis://127.0.0.1:${port}`, PROTEAN_ENV: 'impatient' },
      timeoutMs: 60_000,
    });
    expect(code).toBe(1);
    expect(stderr).toContain('still not reachable after 2 s ([server] startup_timeout_seconds)');
    expect(stderr).toContain(`[brokers.default] (redis at redis://127.0.0.1:${port})`);
  }, 90_000);

  it('a database that does not exist is not waited for: exit 1 at once, naming it', async () => {
    const gone = await serverProject();
    await gone.drop();
    const { code, stderr } = await runCli(['server'], { cwd: gone.cwd, timeoutMs: 60_000 });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /\[databases\.default\] cannot connect to PostgreSQL at postgresql:\/\/postgres@127\.0\.0\.1:5432\/cli_\w+: .*does not exist; create it/,
    );
    expect(stderr).not.toContain('"msg":"waiting for database"');
  }, 90_000);

  it('regression: --workers 2 waiting for Redis are alive, not crash-looping, and start once it is up', async () => {
    const port = await freePort();
    const child = startCli(['server', '--workers', '2', '--grace', '5', '--restart-delay', '50', '--crash-limit', '2', '--crash-window', '120'], {
      cwd: project.cwd,
      env: { [REDIS_VAR]: `redis://127.0.0.1:${port}` },
    });
    const logs = new LogWatcher(child);
    let redis: ChildProcess | null = null;
    try {
      const url = (await logs.waitFor((r) => r.msg === 'health endpoints listening' && r.logger === 'supervisor', 60_000, 'the supervisor health server'))
        .url as string;
      await logs.waitFor(isMsg('waiting for broker', 1), 60_000, 'worker 1 waiting');
      await logs.waitFor(isMsg('waiting for broker', 2), 60_000, 'worker 2 waiting');
      await failedAttempts(url, 'worker:1/broker:default', 4);
      await failedAttempts(url, 'worker:2/broker:default', 4);
      const waiting = await readyz(url);
      expect(waiting.status).toBe(503);
      expect(waiting.failing).toEqual(expect.arrayContaining(['worker:1', 'worker:1/broker:default', 'worker:2', 'worker:2/broker:default']));
      expect(logs.find(isMsg('worker crashed; restarting'))).toBeUndefined();
      expect(logs.filter(isMsg('worker started'))).toHaveLength(2);
      expect(child.exitCode).toBeNull();

      redis = await startRedisServer(port);
      await logs.waitFor(isMsg('worker ready', 1), 60_000, 'worker 1 ready');
      await logs.waitFor(isMsg('worker ready', 2), 60_000, 'worker 2 ready');
      await eventually(async () => (await readyz(url)).status === 200, 20_000, '/readyz 200');
      expect(logs.find(isMsg('worker crashed; restarting'))).toBeUndefined();

      expect(await stopWithSigterm(child)).toMatchObject({ code: 0 });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      if (redis) await stopProcess(redis);
    }
  }, 150_000);
});
