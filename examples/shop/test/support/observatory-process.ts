/**
 * `protean-ts observatory --port 0` as a real process in the shop's folder: resolves once it
 * prints the address it listens on.
 */
import type { ChildProcess } from 'node:child_process';
import { startCli } from '@protean-ts/cli/testing';
import { SHOP_FOLDER } from './shop-server.js';

export interface ObservatoryProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export async function startObservatoryProcess(env: Record<string, string>, args: readonly string[] = [], timeoutMs = 60_000): Promise<ObservatoryProcess> {
  const child = startCli(['observatory', '--port', '0', ...args], { cwd: SHOP_FOLDER, env });
  child.stdin!.end();
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the observatory printed no address within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: string) => {
      output += chunk;
      const match = /observatory: (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.setEncoding('utf8').on('data', onData);
    child.stderr!.setEncoding('utf8').on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the observatory exited before listening:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
