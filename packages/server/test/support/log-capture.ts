/** Captures the framework's log records in memory for a test, restoring the previous sink after. */
import { configureLogging, type LogRecord } from '@protean-ts/core';

export function captureLogs(): { records: LogRecord[]; restore(): void } {
  const records: LogRecord[] = [];
  const previous = configureLogging({ sink: (_line, record) => records.push(record) });
  return { records, restore: () => void configureLogging(previous) };
}
