/**
 * The structured logger the whole framework shares. Each call writes one record (JSON line or
 * pretty line) to stderr, so command output on stdout stays machine-readable. Child loggers
 * carry bound fields (worker id, subscription); string values and messages are passed through
 * `maskUri`, and secret-named fields are masked, so a logged URI never leaks a password.
 */
import { maskSecrets, maskUri } from '../config/mask-secrets.js';
import { formatRecord, parseLogFormat, type LogFormat, type LogRecord } from './log-format.js';
import { levelRank, parseLogLevel, type LogLevel } from './log-level.js';

export type LogFields = Record<string, unknown>;
/** Receives each formatted line and its record; the default writes the line to stderr. */
export type LogSink = (line: string, record: LogRecord) => void;

export interface LoggingSettings {
  level: LogLevel;
  format: LogFormat;
  sink: LogSink;
}

const stderrSink: LogSink = (line) => {
  process.stderr.write(`${line}\n`);
};

// One settings object shared by every logger, so `configureLogging` also affects loggers
// created before it was called (module-level loggers in adapters).
const settings: LoggingSettings = {
  level: parseLogLevel(process.env.PROTEAN_LOG_LEVEL),
  format: parseLogFormat(process.env.PROTEAN_LOG_FORMAT),
  sink: stderrSink,
};

/** Changes level, format or sink for every logger; returns the previous settings (for tests to restore). */
export function configureLogging(changes: Partial<LoggingSettings>): LoggingSettings {
  const previous = { ...settings };
  Object.assign(settings, changes);
  return previous;
}

export class Logger {
  constructor(
    readonly name: string,
    private readonly bound: LogFields = {},
  ) {}

  /** A logger writing under the same name with extra fields on every record. */
  child(fields: LogFields, name?: string): Logger {
    return new Logger(name ?? this.name, { ...this.bound, ...fields });
  }

  isEnabled(level: LogLevel): boolean {
    return levelRank(level) >= levelRank(settings.level);
  }

  debug(msg: string, fields?: LogFields): void {
    this.log('debug', msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.log('info', msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.log('warn', msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    this.log('error', msg, fields);
  }

  log(level: LogLevel, msg: string, fields?: LogFields): void {
    if (!this.isEnabled(level)) return;
    const extra = maskSecrets(normalize({ ...this.bound, ...fields }) as LogFields);
    const record: LogRecord = { time: new Date().toISOString(), level, logger: this.name, msg: maskUri(msg), ...extra };
    try {
      settings.sink(formatRecord(record, settings.format), record);
    } catch {
      // A broken sink must not break the code that logs.
    }
  }
}

/** A logger for one part of the framework, e.g. `getLogger('outbox')`. */
export function getLogger(name: string, fields?: LogFields): Logger {
  return new Logger(name, fields);
}

// Errors and dates do not survive JSON.stringify usefully; make them plain first.
function normalize(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[Depth]';
  if (value instanceof Error) {
    const out: LogFields = { name: value.name, message: value.message };
    if (value.stack) out.stack = value.stack;
    if (value.cause !== undefined) out.cause = normalize(value.cause, depth + 1);
    return out;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (Array.isArray(value)) return value.map((item) => normalize(item, depth + 1));
  if (value instanceof Map) return normalize(Object.fromEntries(value), depth + 1);
  if (value instanceof Set) return normalize([...value], depth + 1);
  if (typeof value === 'object' && value !== null) {
    const out: LogFields = {};
    for (const [key, v] of Object.entries(value)) out[key] = normalize(v, depth + 1);
    return out;
  }
  return value;
}
