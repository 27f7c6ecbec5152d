/**
 * The server's log stays JSON records: Node's process warnings (pg's DeprecationWarning, for one)
 * become WARN records instead of raw `(node:123) …` lines on stderr, and console calls (ioredis's
 * own warnings, a handler's) become records of the `console` logger.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configureLogging, getLogger, type LogRecord } from '@protean-ts/core';
import { logConsoleOutput, logProcessWarnings } from '../src/index.js';

describe('logProcessWarnings', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    vi.restoreAllMocks();
  });

  const capture = () => {
    const records: LogRecord[] = [];
    const previous = configureLogging({ level: 'info', format: 'json', sink: (_line, record) => records.push(record) });
    cleanups.push(() => configureLogging(previous));
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    return { records, stderr };
  };

  it('regression: logs a warning as one WARN record and prints no raw line', async () => {
    const { records, stderr } = capture();
    cleanups.push(logProcessWarnings(getLogger('server', { workerId: 2 })));
    process.emitWarning('Calling client.query() when the client is already executing a query is deprecated', {
      type: 'DeprecationWarning',
      code: 'PT_TEST_DEP',
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stderr).not.toHaveBeenCalled();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      level: 'warn',
      logger: 'server',
      workerId: 2,
      msg: 'process warning: Calling client.query() when the client is already executing a query is deprecated',
      warning: 'DeprecationWarning',
      code: 'PT_TEST_DEP',
    });
  });

  it('masks a URI password a warning carries, like every log record', async () => {
    const { records } = capture();
    cleanups.push(logProcessWarnings(getLogger('server')));
    process.emitWarning('could not reach postgresql://app:S3cretPg@127.0.0.1:5432/shop');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(JSON.stringify(records)).not.toContain('S3cretPg');
    expect(records[0]!.msg).toContain('postgresql://app:***@127.0.0.1:5432/shop');
  });

  it('gives warnings back to Node when undone', async () => {
    const before = process.listeners('warning');
    logProcessWarnings(getLogger('server'))();
    expect(process.listeners('warning')).toEqual(before);
  });
});

describe('logConsoleOutput', () => {
  it('turns console calls into records at the matching level, URIs masked, and restores the console', () => {
    const records: LogRecord[] = [];
    const previous = configureLogging({ level: 'debug', format: 'json', sink: (_line, record) => records.push(record) });
    const original = console.warn;
    const restore = logConsoleOutput(getLogger('console'));
    try {
      console.warn('[WARN] Redis server does not require a password, but a password was supplied.');
      console.log('handled %d orders for %s', 3, 'redis://user:S3cretRedis@127.0.0.1:6379');
      console.error(new Error('boom'));
    } finally {
      restore();
      configureLogging(previous);
    }
    expect(console.warn).toBe(original);
    expect(records.map((r) => [r.level, r.logger, r.msg.split('\n')[0]])).toEqual([
      ['warn', 'console', '[WARN] Redis server does not require a password, but a password was supplied.'],
      ['info', 'console', 'handled 3 orders for redis://user:***@127.0.0.1:6379'],
      ['error', 'console', 'Error: boom'],
    ]);
  });
});
