/** Runs a command to completion and returns its output; a non-zero exit is an error carrying both streams. */
import { spawn, type SpawnOptions } from 'node:child_process';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], options: SpawnOptions & { allowFailure?: boolean } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0 && !options.allowFailure) {
        reject(
          new Error(
            `${command} ${args.join(' ')} exited with ${code} in ${String(options.cwd ?? process.cwd())}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
          ),
        );
      } else {
        resolve({ code, stdout, stderr });
      }
    });
  });
}
