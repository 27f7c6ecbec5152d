/**
 * Reads the JSON log lines a running `protean-ts server` writes to stderr, so a test can wait
 * for a record (`worker ready` of worker 2) instead of sleeping.
 */
import type { ChildProcess } from 'node:child_process';

export type LogLine = Record<string, unknown> & { msg: string };

export class LogWatcher {
  readonly records: LogLine[] = [];
  /** Non-JSON stderr lines (the CLI's own error line, crash output). */
  readonly text: string[] = [];
  private readonly waiters = new Set<() => void>();
  private buffer = '';

  constructor(child: ChildProcess) {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk;
      const lines = this.buffer.split('\n');
      this.buffer = lines.pop()!;
      for (const line of lines) this.add(line);
      for (const wake of this.waiters) wake();
    });
  }

  find(predicate: (record: LogLine) => boolean): LogLine | undefined {
    return this.records.find(predicate);
  }

  filter(predicate: (record: LogLine) => boolean): LogLine[] {
    return this.records.filter(predicate);
  }

  /** Resolves with the first record matching, waiting for it up to `timeoutMs`. */
  waitFor(predicate: (record: LogLine) => boolean, timeoutMs = 30_000, what = 'a log record'): Promise<LogLine> {
    const found = this.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr so far:\n${this.dump()}`));
      }, timeoutMs);
      const check = () => {
        const record = this.find(predicate);
        if (!record) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(record);
      };
      this.waiters.add(check);
    });
  }

  dump(): string {
    return [...this.records.map((r) => JSON.stringify(r)), ...this.text].slice(-60).join('\n');
  }

  private add(line: string): void {
    if (!line.trim()) return;
    try {
      const parsed = JSON.parse(line) as LogLine;
      if (parsed && typeof parsed.msg === 'string') {
        this.records.push(parsed);
        return;
      }
    } catch {
      // not a log record
    }
    this.text.push(line);
  }
}
