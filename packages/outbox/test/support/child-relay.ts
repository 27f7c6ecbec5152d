/** Spawns `relay-worker.ts` as a real Node process running from TypeScript sources. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RelayWorkerOptions } from './relay-worker.js';

const WORKER = fileURLToPath(new URL('./relay-worker.ts', import.meta.url));

export interface ChildRelay {
  process: ChildProcess;
  /** Everything it wrote to stderr (its logs), for failure messages. */
  stderr(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

export async function spawnRelay(options: RelayWorkerOptions, env: NodeJS.ProcessEnv = {}): Promise<ChildRelay> {
  const child = spawn(process.execPath, ['--conditions=@protean-ts/source', '--import', 'tsx', WORKER, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PROTEAN_LOG_LEVEL: 'info', ...env },
  });
  let err = '';
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`relay worker ${options.workerId} did not start in 30 s:\n${err}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`relay worker ${options.workerId} exited with ${code} before starting:\n${err}`));
    });
  });
  return {
    process: child,
    stderr: () => err,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
