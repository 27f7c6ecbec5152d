/** Shared pieces of the processor tests: fast settings, captured logs, polling for a condition. */
import { configureLogging, defaultConfig, type LogRecord, type NewOutboxRow, type OutboxConfig } from '@protean-ts/core';

type Overrides = Partial<Omit<OutboxConfig, 'retry' | 'cleanup'>> & {
  retry?: Partial<OutboxConfig['retry']>;
  cleanup?: Partial<OutboxConfig['cleanup']>;
};

/** `[outbox]` settings tuned for tests: short ticks, immediate retries, no jitter. */
export function outboxConfig(overrides: Overrides = {}): OutboxConfig {
  const base = defaultConfig().outbox;
  return {
    ...base,
    messages_per_tick: 10,
    tick_interval: 0.05,
    ...overrides,
    retry: { ...base.retry, base_delay_seconds: 0, jitter: false, ...overrides.retry },
    cleanup: { ...base.cleanup, ...overrides.cleanup },
  };
}

/** A row whose envelope every broker refuses (no headers): a real message-level failure. */
export function poisoned(row: NewOutboxRow): NewOutboxRow {
  return { ...row, envelope: { data: {}, metadata: {} } as unknown as NewOutboxRow['envelope'] };
}

export interface CapturedLogs {
  records: LogRecord[];
  restore(): void;
  messages(level?: LogRecord['level']): string[];
}

export function captureLogs(): CapturedLogs {
  const records: LogRecord[] = [];
  const previous = configureLogging({ level: 'debug', sink: (_line, record) => records.push(record) });
  return {
    records,
    restore: () => configureLogging(previous),
    messages: (level) => records.filter((r) => level === undefined || r.level === level).map((r) => r.msg),
  };
}

export async function waitFor(condition: () => Promise<boolean> | boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
