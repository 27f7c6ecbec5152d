/** A long-running child (the server) whose output a test waits on, and stops with a signal. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export class BackgroundProcess {
  output = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(command: string, args: string[], options: SpawnOptions) {
    this.child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Resolves once the output contains `text`; rejects with the output so far after `timeoutMs`. */
  async waitFor(text: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes(text)) {
      if (this.child.exitCode !== null) throw new Error(`process exited (${this.child.exitCode}) before printing "${text}":\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`no "${text}" after ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}

/** Whether a process with this id is still running. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
