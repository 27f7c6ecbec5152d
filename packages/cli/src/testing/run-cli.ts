/**
 * Spawns the real `protean-ts` command (bin/protean-ts.js: the compiled CLI when the package is
 * built, else its sources through the dev runner), for e2e tests in any package:
 * `const { code, stdout, stderr } = await runCli(['db', 'setup'], { cwd })`.
 * `start` returns the child for long-running commands (server) that a test stops itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** bin/protean-ts.js, absolute: the command as installed (dist/ when built, else the dev runner). */
export const CLI_BIN = fileURLToPath(new URL('../../bin/protean-ts.js', import.meta.url));
/** bin/protean-ts-dev.js, absolute: always the TypeScript sources (no build needed, slower start). */
export const CLI_DEV_BIN = fileURLToPath(new URL('../../bin/protean-ts-dev.js', import.meta.url));

export interface RunCliOptions {
  cwd?: string;
  /** Added to (and overriding) the parent's environment. */
  env?: Record<string, string | undefined>;
  /** Kill the command (SIGKILL) after this long; default 60 s. */
  timeoutMs?: number;
  /** Written to the command's stdin, which is then closed. */
  input?: string;
  /** Node options before the script (e.g. `--cpu-prof`); `server --workers N` passes them on to its workers. */
  nodeArgs?: readonly string[];
}

export interface CliResult {
  /** Exit code; null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the command and returns the child process (stdout/stderr piped). */
export function startCli(args: readonly string[], options: RunCliOptions = {}): ChildProcess {
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  // A parent's NODE_OPTIONS may carry loaders that must not leak into the command, unless the test sets it.
  if (!options.env || !('NODE_OPTIONS' in options.env)) delete env.NODE_OPTIONS;
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return spawn(process.execPath, [...(options.nodeArgs ?? []), CLI_BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs the command to completion. */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliResult> {
  const child = startCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin!.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
