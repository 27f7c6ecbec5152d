/**
 * `protean-ts server [--workers N] [--test-mode]`: runs the Engine (outbox processors, stream
 * and broker subscriptions, health endpoints) until SIGINT/SIGTERM. With N > 1 this process
 * becomes the supervisor and forks N workers running this same command line, each marked by
 * PROTEAN_WORKER_ID; a worker sees that variable and runs one Engine.
 */
import path from 'node:path';
import { getLogger } from '@protean-ts/core';
import {
  assertDistributable,
  connectionBudgets,
  currentWorkerId,
  NotDistributableError,
  DEFAULT_RESTART_POLICY,
  Engine,
  logConsoleOutput,
  logProcessWarnings,
  runSupervisor,
  runWorker,
  tagLogsWithWorker,
} from '@protean-ts/server';
import { CliError, ExitCode } from '../cli-error.js';
import type { CliContext } from '../cli-context.js';
import type { CommandGroup } from './command-group.js';
import { partitionShares } from './partition-shares.js';

export interface ServerOptions {
  workers: number;
  testMode?: boolean;
  testModeTimeout: number;
  grace: number;
  crashLimit: number;
  crashWindow: number;
  restartDelay: number;
}

/** The supervisor waits this long past the workers' own grace period before SIGKILL. */
const KILL_MARGIN_MS = 2_000;

export const registerServerCommands: CommandGroup = (program, context) => {
  program
    .command('server')
    .description('Run the Engine: outbox processors, subscriptions and health endpoints, until SIGINT/SIGTERM')
    .option('--workers <n>', 'worker processes; above 1 this process supervises them', integer('--workers', 1), 1)
    .option('--test-mode', 'exit 0 once every outbox is empty and every stream drained (for tests and CI)')
    .option('--test-mode-timeout <seconds>', 'with --test-mode, exit 1 naming what is still busy after this long', number('--test-mode-timeout'), 60)
    .option('--grace <seconds>', 'on SIGINT/SIGTERM, time to finish work in flight before being killed', number('--grace'), 10)
    .option(
      '--crash-limit <n>',
      'give up when one worker crashes this many times within --crash-window',
      integer('--crash-limit', 1),
      DEFAULT_RESTART_POLICY.crashLimit,
    )
    .option('--crash-window <seconds>', 'window of --crash-limit', number('--crash-window'), DEFAULT_RESTART_POLICY.crashWindowMs / 1000)
    .option(
      '--restart-delay <ms>',
      'first restart delay of a crashed worker; doubles per crash up to 30 s',
      integer('--restart-delay', 0),
      DEFAULT_RESTART_POLICY.initialDelayMs,
    )
    .action(async (options: ServerOptions) => {
      // A worker is a process the supervisor forked: the variable and the IPC channel together,
      // so a PROTEAN_WORKER_ID left in a shell does not turn a standalone server into a worker.
      const workerId = typeof process.send === 'function' ? currentWorkerId(context.env) : null;
      const code = options.workers > 1 && workerId === null ? await supervise(context, options) : await serve(context, options, workerId);
      if (code !== ExitCode.OK) throw new CliError(`server stopped with exit code ${code} (see the log above)`, code);
    });
};

/** One Engine in this process: `--workers 1`, or one worker under a supervisor. */
async function serve(context: CliContext, options: ServerOptions, workerId: number | null): Promise<number> {
  if (workerId !== null) tagLogsWithWorker(workerId);
  const logger = getLogger('server', workerId === null ? {} : { workerId });
  // Every line this process writes is a JSON record: Node's warnings and console calls included.
  logProcessWarnings(logger);
  logConsoleOutput(getLogger('console'));
  // Configuration and model errors fail here; the Engine connects, waiting for services still coming up.
  const domain = await context.initDomain({ connect: false });
  // Under a supervisor only the supervisor binds the health port, answering for every worker.
  const engine = new Engine(domain, { workerId, health: workerId === null, logger });
  return runWorker({
    engine,
    workerId,
    logger,
    graceMs: options.grace * 1000,
    testMode: options.testMode === true,
    testModeTimeoutMs: options.testModeTimeout * 1000,
  });
}

async function supervise(context: CliContext, options: ServerOptions): Promise<number> {
  const logger = getLogger('supervisor');
  logProcessWarnings(logger);
  logConsoleOutput(getLogger('console'));
  // Load and check the domain once here, so a broken configuration fails once, before forking,
  // instead of N times in a crash loop. Not connected: the workers wait for the services.
  const domain = await context.initDomain({ connect: false });
  let health: { host: string; port: number };
  let metricsPath: string | null;
  try {
    assertDistributable(options.workers, domain.config.databases, domain.brokers.values());
    // Each worker has its own pool: the sum is what PostgreSQL's max_connections must allow.
    for (const budget of connectionBudgets(options.workers, domain.config.databases)) {
      logger.info('database connections of all workers together, at most', { ...budget });
    }
    const shares = partitionShares(options.workers, domain.config.outbox.partitions);
    if (shares) logger[shares.level](shares.msg, shares.fields);
    const { host, port, metrics, metrics_path: path } = domain.config.server.health;
    health = { host, port };
    metricsPath = metrics ? path : null;
  } catch (error) {
    // A configuration mistake with a complete message: no stack trace hint.
    if (error instanceof NotDistributableError) throw new CliError(`${error.message}${await environmentHint(context)}`, ExitCode.FAILURE, { cause: error });
    throw error;
  } finally {
    await domain.close();
  }
  return runSupervisor({
    workers: options.workers,
    modulePath: process.argv[1]!,
    args: process.argv.slice(2),
    graceMs: options.grace * 1000 + KILL_MARGIN_MS,
    restart: {
      ...DEFAULT_RESTART_POLICY,
      initialDelayMs: options.restartDelay,
      crashLimit: options.crashLimit,
      crashWindowMs: options.crashWindow * 1000,
    },
    health,
    metricsPath,
    testMode: options.testMode === true,
    logger,
  });
}

function integer(flag: string, min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be a whole number of at least ${min}, got "${value}"`, ExitCode.USAGE);
    return n;
  };
}

function number(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new CliError(`${flag} must be a positive number of seconds, got "${value}"`, ExitCode.USAGE);
    return n;
  };
}

/**
 * The likely mistake behind in-process infrastructure with several workers: the file has a
 * production-like environment table, and PROTEAN_ENV was not set to select it.
 */
async function environmentHint(context: CliContext): Promise<string> {
  const loaded = await context.loadConfig().catch(() => null);
  if (!loaded || loaded.environment !== null || loaded.environments.length === 0) return '';
  const tables = loaded.environments.map((name) => `[${name}]`).join(', ');
  return `\nPROTEAN_ENV is not set, so ${path.basename(loaded.file ?? 'domain.toml')}'s environment tables (${tables}) are not in effect; PROTEAN_ENV=${loaded.environments[0]} selects one.`;
}
