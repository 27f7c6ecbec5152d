/**
 * Log levels and their order. The threshold comes from `PROTEAN_LOG_LEVEL` (default `info`);
 * an unknown value falls back to `info` rather than silencing the framework.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function levelRank(level: LogLevel): number {
  return RANK[level];
}

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  const normalized = value?.trim().toLowerCase();
  if (normalized === 'warning') return 'warn';
  return (LOG_LEVELS as readonly string[]).includes(normalized ?? '') ? (normalized as LogLevel) : fallback;
}
