/**
 * No secret in any output: the CLI's commands, the supervisor and its workers run the shop's
 * flows with passwords in both URIs (a Redis ACL user of the test's own; PostgreSQL here trusts
 * any password), through a poison message, a process warning, an outage of both services in a
 * running server, and services that are not there at all (with and without --verbose). Every line
 * of every process, stdout and stderr, is scanned: none holds a password, and every line of a
 * server is a JSON record (the CLI's own closing error line aside).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { eventually } from './eventually.js';
import { LogWatcher, type LogLine } from './log-watcher.js';
import { runCli, startCli, type CliResult } from './run-cli.js';
import { SHOP_DOMAIN, serverProject, type ServerProject } from './server-project.js';
import { TcpProxy } from './tcp-proxy.js';

const up = await servicesUp(POSTGRES, REDIS);

const token = randomBytes(4).toString('hex');
const REDIS_USER = `pt-secrets-${token}`;
const REDIS_PASSWORD = `S3cretRedis-${token}`;
// '@' and '/' must be percent-encoded in a URI: the decoded form must not leak either.
const PG_PASSWORD = `S3cret@Pg/${token}`;
const PG_PASSWORD_IN_URI = encodeURIComponent(PG_PASSWORD);
const SECRETS = [REDIS_PASSWORD, PG_PASSWORD, PG_PASSWORD_IN_URI, `S3cretRedis`, `S3cret@Pg`, `S3cret%40Pg`];

const REDIS_VAR = 'SECRETS_TEST_REDIS_URI';
const POSTGRES_VAR = 'SECRETS_TEST_POSTGRES_URI';
const redisUri = (port: number, password = REDIS_PASSWORD) => `redis://${REDIS_USER}:${password}@127.0.0.1:${port}`;
const postgresServerUri = (port: number) => `postgresql://postgres:${PG_PASSWORD_IN_URI}@127.0.0.1:${port}`;

/** The CLI's own closing lines for a failed command: human output, allowed to be text. */
const CLI_ERROR_LINE = /^(protean-ts: error: |Run again with --verbose)/;

interface Output {
  what: string;
  stdout: string;
  stderr: string;
  /** A server process: every line must be a JSON record. */
  json: boolean;
}

/** Every problem found in the outputs: a line holding a secret, or a server line that is not JSON. */
function problems(outputs: readonly Output[]): string[] {
  const found: string[] = [];
  for (const { what, stdout, stderr, json } of outputs) {
    for (const [stream, text] of [
      ['stdout', stdout],
      ['stderr', stderr],
    ] as const) {
      for (const line of text.split('\n')) {
        const secret = SECRETS.find((s) => line.includes(s));
        if (secret) found.push(`${what} ${stream} holds a secret: ${line}`);
        if (!json || line.trim() === '' || CLI_ERROR_LINE.test(line)) continue;
        try {
          const record = JSON.parse(line) as unknown;
          if (typeof record !== 'object' || record === null || typeof (record as LogLine).msg !== 'string')
            found.push(`${what} ${stream} not a log record: ${line}`);
        } catch {
          found.push(`${what} ${stream} not JSON: ${line}`);
        }
      }
    }
  }
  return found;
}

const isMsg = (msg: string, workerId?: number) => (r: LogLine) => r.msg === msg && (workerId === undefined || r.workerId === workerId);

/** Collects a long-running command's whole output, line by line, as its log watcher sees it. */
function collect(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  return { stdout: () => stdout, stderr: () => stderr };
}

describe.skipIf(!up)('secrets in the URIs never reach any output', () => {
  let project: ServerProject;
  const outputs: Output[] = [];
  const cli = async (what: string, args: string[], env: Record<string, string> = {}, json = false): Promise<CliResult> => {
    const result = await runCli(args, { cwd: project.cwd, env: { PROTEAN_LOG_LEVEL: 'debug', ...env }, timeoutMs: 120_000 });
    outputs.push({ what, stdout: result.stdout, stderr: result.stderr, json });
    return result;
  };

  beforeAll(async () => {
    execFileSync('redis-cli', ['ACL', 'SETUSER', REDIS_USER, 'on', `>${REDIS_PASSWORD}`, '~*', '&*', '+@all']);
    project = await serverProject({
      redisUri: `\${${REDIS_VAR}|${redisUri(6379)}}`,
      databaseServerUri: `\${${POSTGRES_VAR}|${postgresServerUri(5432)}}`,
      // A handler that raises a process warning: it must come out as a JSON record too.
      domain: SHOP_DOMAIN.replace(
        "if (event.customer === 'poison')",
        "if (event.customer === 'warn') process.emitWarning('a library deprecation (test)', 'DeprecationWarning');\n    if (event.customer === 'poison')",
      ),
      toml: '[impatient.server]\nstartup_timeout_seconds = 2\n',
    });
    const setup = await cli('db setup', ['db', 'setup']);
    expect(setup.code, setup.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    execFileSync('redis-cli', ['ACL', 'DELUSER', REDIS_USER]);
    await project?.drop();
  });

  it('the shop flows through --workers 2 --test-mode, a dead letter, a process warning and the outbox and dlq commands', async () => {
    await project.seed(['Ann', 'poison', 'warn']);
    const server = await cli('server --workers 2 --test-mode', ['server', '--workers', '2', '--test-mode', '--test-mode-timeout', '60'], {}, true);
    expect(server.code, server.stderr).toBe(0);
    expect(await project.receipts()).toEqual(['Ann', 'warn']);
    expect(server.stderr).toContain('"msg":"process warning: a library deprecation (test)"');
    for (const args of [['outbox', 'status'], ['outbox', 'list'], ['dlq', 'list'], ['dlq', 'list', 'Receipts', '--json'], ['info']]) {
      const result = await cli(args.join(' '), args);
      expect(result.code, result.stderr).toBe(0);
    }
    expect(problems(outputs)).toEqual([]);
  }, 180_000);

  it('a running server through an outage of PostgreSQL and Redis', async () => {
    const [redisPort, postgresPort] = [await freePort(), await freePort()];
    const redisProxy = new TcpProxy(redisPort, { host: '127.0.0.1', port: 6379 });
    const postgresProxy = new TcpProxy(postgresPort, { host: '127.0.0.1', port: 5432 });
    await redisProxy.start();
    await postgresProxy.start();
    const child = startCli(['server', '--workers', '2', '--grace', '5'], {
      cwd: project.cwd,
      env: { PROTEAN_LOG_LEVEL: 'debug', [REDIS_VAR]: redisUri(redisPort), [POSTGRES_VAR]: postgresServerUri(postgresPort) },
    });
    const output = collect(child);
    const logs = new LogWatcher(child);
    try {
      await logs.waitFor(isMsg('worker ready', 1), 60_000, 'worker 1');
      await logs.waitFor(isMsg('worker ready', 2), 60_000, 'worker 2');
      const url = logs.find((r) => r.msg === 'health endpoints listening')!.url as string;
      await eventually(async () => (await fetch(`${url}/readyz`)).status === 200, 20_000, '/readyz 200');

      await redisProxy.stop();
      await postgresProxy.stop();
      await logs.waitFor(isMsg('Redis connection lost; retrying in the background'), 20_000, 'the Redis outage');
      await eventually(async () => (await fetch(`${url}/readyz`)).status === 503, 20_000, '/readyz 503');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // The health details name the failing services and their errors: masked too.
      const health = await (await fetch(`${url}/healthz`)).text();
      outputs.push({ what: '/healthz during the outage', stdout: health, stderr: '', json: false });
      expect(health).toContain('broker:default');
      await redisProxy.start();
      await postgresProxy.start();
      await eventually(async () => (await fetch(`${url}/readyz`)).status === 200, 20_000, '/readyz 200 after the outage');

      await project.seed(['Cat']);
      await eventually(async () => (await project.receipts()).includes('Cat'), 30_000, 'the receipt of Cat');
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await redisProxy.stop();
      await postgresProxy.stop();
    }
    outputs.push({ what: 'server --workers 2 through an outage', stdout: output.stdout(), stderr: output.stderr(), json: true });
    expect(problems(outputs)).toEqual([]);
  }, 180_000);

  it("a password Redis does not need (its default user has none): ioredis's console warning is a record too", async () => {
    const env = { [REDIS_VAR]: `redis://:${REDIS_PASSWORD}@127.0.0.1:6379` };
    const server = await cli('server --test-mode (password for the default user)', ['server', '--test-mode', '--test-mode-timeout', '60'], env, true);
    expect(server.code, server.stderr).toBe(0);
    expect(server.stderr).toContain('"logger":"console","msg":"[WARN] This Redis server\'s `default` user does not require a password');
    expect(problems(outputs)).toEqual([]);
  }, 120_000);

  it('services that are not there, and a refused password, with and without --verbose', async () => {
    const deadPort = await freePort();
    const deadRedis = { [REDIS_VAR]: redisUri(deadPort), PROTEAN_ENV: 'impatient' };
    const deadPostgres = { [POSTGRES_VAR]: postgresServerUri(deadPort), PROTEAN_ENV: 'impatient' };
    const wrongRedisPassword = { [REDIS_VAR]: redisUri(6379, `${REDIS_PASSWORD}-wrong`) };
    const workers = await cli('server --workers 2 (dead Redis)', ['server', '--workers', '2', '--crash-limit', '1'], deadRedis, true);
    expect(workers.code).toBe(1);
    expect((await cli('dlq list (dead Redis)', ['dlq', 'list'], deadRedis)).code).toBe(1);
    await cli('info (dead Redis)', ['info'], deadRedis);
    for (const [what, env] of [
      ['dead Redis', deadRedis],
      ['dead PostgreSQL', deadPostgres],
      ['wrong Redis password', wrongRedisPassword],
    ] as const) {
      const server = await cli(`server (${what})`, ['server'], env, true);
      expect(server.code, `server with ${what}`).toBe(1);
      for (const args of [
        ['dlq', 'list', '--verbose'],
        ['outbox', 'status', '--verbose'],
      ]) {
        expect((await cli(`${args.join(' ')} (${what})`, args, env)).code, `${args.join(' ')} with ${what}`).toBe(1);
      }
    }
    expect(problems(outputs)).toEqual([]);
  }, 240_000);
});
