import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configureLogging, getLogger, parseLogFormat, parseLogLevel, type LogRecord } from '../../src/index.js';

describe('logger', () => {
  const lines: string[] = [];
  const records: LogRecord[] = [];
  let restore: ReturnType<typeof configureLogging>;

  beforeEach(() => {
    lines.length = 0;
    records.length = 0;
    restore = configureLogging({
      level: 'info',
      format: 'json',
      sink: (line, record) => {
        lines.push(line);
        records.push(record);
      },
    });
  });
  afterEach(() => {
    configureLogging(restore);
  });

  it('writes one JSON object per line with time, level, logger, message and fields', () => {
    getLogger('outbox').info('published batch', { count: 3, broker: 'default' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    const parsed = JSON.parse(lines[0]!);
    expect(parsed).toMatchObject({ level: 'info', logger: 'outbox', msg: 'published batch', count: 3, broker: 'default' });
    expect(new Date(parsed.time).toISOString()).toBe(parsed.time);
  });

  it('child loggers carry bound fields, and call fields win over bound ones', () => {
    const worker = getLogger('server').child({ worker: 2, pid: 100 });
    const sub = worker.child({ subscription: 'Mailer' });
    sub.warn('retrying', { pid: 101 });
    expect(records[0]).toMatchObject({ logger: 'server', worker: 2, subscription: 'Mailer', pid: 101, level: 'warn' });
  });

  it('drops records below the level and can be reconfigured at run time', () => {
    const log = getLogger('x');
    log.debug('hidden');
    expect(records).toHaveLength(0);
    configureLogging({ level: 'debug' });
    log.debug('shown');
    configureLogging({ level: 'error' });
    log.warn('hidden too');
    log.error('shown too');
    expect(records.map((r) => r.msg)).toEqual(['shown', 'shown too']);
    expect(log.isEnabled('warn')).toBe(false);
  });

  it('masks passwords in URIs, in messages and in nested fields, and secret-named fields', () => {
    const log = getLogger('db');
    log.info('connecting to postgresql://app:s3cret@db:5432/shop', {
      uri: 'redis://:hunter2@cache:6379/0',
      settings: { database_uri: 'postgresql://u:pw@h/d?password=also-secret', password: 'plain', nested: ['amqp://guest:guest@mq//'] },
    });
    const line = lines[0]!;
    for (const secret of ['s3cret', 'hunter2', ':pw@', 'also-secret', 'plain', 'guest:guest']) expect(line).not.toContain(secret);
    expect(records[0]).toMatchObject({
      msg: 'connecting to postgresql://app:***@db:5432/shop',
      uri: 'redis://:***@cache:6379/0',
      settings: { database_uri: 'postgresql://u:***@h/d?password=***', password: '***' },
    });
  });

  it('renders errors with name, message, stack and cause, and survives cycles and bigints', () => {
    const cyclic: Record<string, unknown> = { id: 1n };
    cyclic.self = cyclic;
    getLogger('x').error('failed', { error: new Error('outer', { cause: new TypeError('inner') }), cyclic });
    const parsed = JSON.parse(lines[0]!);
    expect(parsed.error).toMatchObject({ name: 'Error', message: 'outer', cause: { name: 'TypeError', message: 'inner' } });
    expect(parsed.error.stack).toContain('outer');
    expect(parsed.cyclic.id).toBe('1');
  });

  it('has a readable format for terminals', () => {
    configureLogging({ format: 'pretty' });
    getLogger('server').child({ worker: 1 }).info('worker started', { note: 'two words' });
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO  \[server\] worker started worker=1 note="two words"$/);
  });

  it('chooses format and level from environment values, defaulting safely', () => {
    expect(parseLogFormat('pretty')).toBe('pretty');
    expect(parseLogFormat('JSON')).toBe('json');
    expect(parseLogFormat(undefined)).toBe('json');
    expect(parseLogLevel('DEBUG')).toBe('debug');
    expect(parseLogLevel('warning')).toBe('warn');
    expect(parseLogLevel('loud')).toBe('info');
  });

  it('never lets a broken sink break the caller', () => {
    configureLogging({
      sink: () => {
        throw new Error('disk full');
      },
    });
    expect(() => getLogger('x').error('still fine')).not.toThrow();
  });
});
