/**
 * Log records of each test, for tests that assert on what was logged: the records land in the
 * returned array (emptied before each test) instead of stderr, and logging is restored after it.
 * Call it inside a `describe` (or at the top of a file): it registers vitest hooks.
 */
import { afterEach, beforeEach } from 'vitest';
import { configureLogging, type LoggingSettings, type LogRecord } from '@protean-ts/core';

export function captureLogsPerTest(): readonly LogRecord[] {
  const records: LogRecord[] = [];
  let previous: LoggingSettings | undefined;
  beforeEach(() => {
    records.length = 0;
    previous = configureLogging({ sink: (_line, record) => records.push(record) });
  });
  afterEach(() => {
    if (previous) configureLogging(previous);
    previous = undefined;
  });
  return records;
}
