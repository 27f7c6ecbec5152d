/** The framework's structured logger. */
export { Logger, getLogger, configureLogging, type LogFields, type LogSink, type LoggingSettings } from './logger.js';
export { parseLogLevel, LOG_LEVELS, type LogLevel } from './log-level.js';
export { parseLogFormat, formatRecord, type LogFormat, type LogRecord } from './log-format.js';
