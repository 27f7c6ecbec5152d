/**
 * `protean-ts server --workers N` as real processes, started through the CLI from its sources
 * in the shop's folder, so it loads the shop the way users run it (domain.toml's `module` key).
 * The server's JSON log on stderr tells which workers run under which pid.
 */
import { appendFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli, startCli, type CliResult } from '@protean-ts/cli/testing';

export const SHOP_FOLDER = fileURLToPath(new URL('../..', import.meta.url));

export type LogLine = Record<string, unknown> & { msg?: string; level?: string };

export interface ShopServer {
  readonly child: ChildProcess;
  readonly logs: LogLine[];
  /** workerId → pid of the worker's latest start. */
  workerPids(): Map<number, number>;
  /** Resolves with the first log line (already seen or still to come) that matches. */
  waitForLog(matches: (line: LogLine) => boolean, timeoutMs: number, what: string): Promise<LogLine>;
  /** Sends `signal` and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs one `protean-ts` command in the shop's folder. */
export function shopCli(args: readonly string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliResult> {
  return runCli(args, { cwd: SHOP_FOLDER, env, timeoutMs });
}

/** Starts the server and resolves once every worker (or the single engine) is ready. */
export async function startShopServer(
  workers: number,
  env: Record<string, string>,
  readyTimeoutMs = 120_000,
  nodeArgs: readonly string[] = [],
): Promise<ShopServer> {
  const child = startCli(['server', '--workers', String(workers)], { cwd: SHOP_FOLDER, env: { ...env, PROTEAN_LOG_FORMAT: 'json' }, nodeArgs });
  child.stdin!.end();
  const logs: LogLine[] = [];
  const waiters = new Set<() => void>();
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let partial = '';
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) logs.push(parseLine(line));
    // SHOP_E2E_LOG=<file>: every log line of the server, for a failed run's post-mortem.
    if (process.env.SHOP_E2E_LOG && lines.length) appendFileSync(process.env.SHOP_E2E_LOG, lines.join('\n') + '\n');
    for (const wake of waiters) wake();
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      for (const wake of waiters) wake();
      resolve();
    }),
  );

  const server: ShopServer = {
    child,
    logs,
    workerPids() {
      const pids = new Map<number, number>();
      for (const line of logs) if (line.msg === 'worker ready') pids.set(Number(line.workerId), Number(line.pid));
      return pids;
    },
    waitForLog(matches, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = logs.find(matches);
          if (found) return finish(() => resolve(found));
          if (exit) return finish(() => reject(new Error(`server exited (${JSON.stringify(exit)}) while waiting for ${what}\n${tail(logs)}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${what} within ${timeoutMs} ms\n${tail(logs)}`))), timeoutMs);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM', timeoutMs = 60_000) {
      if (!exit) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
      return exit!;
    },
  };

  if (workers > 1) {
    for (let id = 1; id <= workers; id++) {
      await server.waitForLog((l) => l.msg === 'worker ready' && l.workerId === id, readyTimeoutMs, `"worker ready" from worker ${id}`);
    }
  } else {
    await server.waitForLog((l) => l.msg === 'engine started', readyTimeoutMs, '"engine started"');
  }
  return server;
}

function parseLine(line: string): LogLine {
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null ? (parsed as LogLine) : { msg: line };
  } catch {
    // Not a log record (a stack trace, a runtime warning): kept as text.
    return { msg: line };
  }
}

function tail(logs: readonly LogLine[]): string {
  return logs
    .slice(-15)
    .map((l) => JSON.stringify(l).slice(0, 400))
    .join('\n');
}
