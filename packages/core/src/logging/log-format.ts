/**
 * Turns one log record into one line: `json` (one object per line, for log shippers) or
 * `pretty` (aligned, human-readable, for terminals). Chosen by `PROTEAN_LOG_FORMAT`.
 */
import type { LogLevel } from './log-level.js';

export type LogFormat = 'json' | 'pretty';

export interface LogRecord {
  time: string;
  level: LogLevel;
  logger: string;
  msg: string;
  [field: string]: unknown;
}

export function parseLogFormat(value: string | undefined): LogFormat {
  const normalized = value?.trim().toLowerCase();
  return normalized === 'pretty' || normalized === 'text' || normalized === 'human' ? 'pretty' : 'json';
}

export function formatRecord(record: LogRecord, format: LogFormat): string {
  return format === 'json' ? safeStringify(record) : prettyLine(record);
}

function prettyLine(record: LogRecord): string {
  const { time, level, logger, msg, ...fields } = record;
  const pairs = Object.entries(fields).map(([key, value]) => `${key}=${prettyValue(value)}`);
  const head = `${time} ${level.toUpperCase().padEnd(5)} [${logger}] ${msg}`;
  return pairs.length ? `${head} ${pairs.join(' ')}` : head;
}

function prettyValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return safeStringify(value);
}

// A log call must never throw: cycles and BigInts are rendered instead of failing.
function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'object' && v !== null) {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
      }
      return v;
    }) ?? 'undefined'
  );
}
