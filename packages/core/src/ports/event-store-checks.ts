/**
 * Argument checks shared by every event store, run before any I/O so a caller's bug surfaces as
 * an error naming the method and argument (`InvalidEventStoreRequestError`, or
 * `InvalidStreamNameError` for a stream that does not follow `<domain>::<category>-<id>`).
 */
import { InvalidEventStoreRequestError } from '../errors/invalid-event-store-request.error.js';
import { InvalidStreamNameError } from '../errors/invalid-stream-name.error.js';
import { MAX_PAGE_SIZE, type NewEvent, type NewSnapshot, type ReaderCursor } from './event-store-records.js';
import { ALL_STREAMS, isCategory, isEntityStream } from './stream-names.js';

/** `<Domain>.<Class>.v<N>`: dotted name parts without whitespace, then the version. */
const EVENT_TYPE = /^[^\s.]+(\.[^\s.]+)+\.v[0-9]+$/;

export class EventStoreChecks {
  stream(method: string, argument: string, value: unknown): void {
    if (!isEntityStream(value)) {
      throw new InvalidStreamNameError(
        String(value),
        `${method}() takes an entity stream named <domain>::<category>-<id> as ${argument}; build it with streamName()`,
      );
    }
    if (value.includes('\u0000')) {
      throw new InvalidStreamNameError(
        value,
        `${method}(): ${argument} must not contain a NUL character (\\u0000): PostgreSQL cannot store one in text; remove it from the id`,
      );
    }
  }

  category(method: string, value: unknown): void {
    if (!isCategory(value)) {
      throw new InvalidStreamNameError(String(value), `${method}() takes a category named <domain>::<category>, or "$all"`);
    }
  }

  /** One or more categories named <domain>::<category> (not `$all`); returns them without repeats. */
  categories(method: string, value: unknown): string[] {
    if (!Array.isArray(value) || value.length === 0)
      this.fail(method, 'categories', `must be a non-empty array of categories named <domain>::<category>, got ${describe(value)}`);
    for (const category of value as unknown[]) {
      if (category === ALL_STREAMS)
        throw new InvalidStreamNameError(category, `${method}() takes categories named <domain>::<category>; read every stream with readCategory("$all")`);
      this.category(method, category);
    }
    return [...new Set(value as string[])];
  }

  integer(method: string, argument: string, value: unknown, min: number): void {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
      this.fail(method, argument, `must be an integer >= ${min}, got ${describe(value)}`);
    }
  }

  limit(method: string, value: unknown): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
      this.fail(method, 'limit', `must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${describe(value)}`);
    }
    return value as number;
  }

  date(method: string, argument: string, value: unknown): void {
    if (!(value instanceof Date) || Number.isNaN(value.getTime())) this.fail(method, argument, `must be a valid Date, got ${describe(value)}`);
  }

  cursor(method: string, value: ReaderCursor | undefined): void {
    if (!isObject(value)) this.fail(method, 'after', `must be a ReaderCursor { transactionId, globalPosition }, got ${describe(value)}`);
    this.integer(method, 'after.transactionId', value.transactionId, 0);
    this.integer(method, 'after.globalPosition', value.globalPosition, 0);
  }

  events(method: string, events: readonly NewEvent[] | undefined): void {
    if (!Array.isArray(events) || events.length === 0) this.fail(method, 'events', `must be a non-empty array of events, got ${describe(events)}`);
    (events as readonly NewEvent[]).forEach((event, i) => {
      const at = `events[${i}]`;
      if (!isObject(event)) this.fail(method, at, `must be { messageId, type, data, metadata? }, got ${describe(event)}`);
      if (typeof event.messageId !== 'string' || event.messageId.trim() === '')
        this.fail(method, `${at}.messageId`, `must be a non-empty string, got ${describe(event.messageId)}`);
      if (typeof event.type !== 'string' || !EVENT_TYPE.test(event.type))
        this.fail(method, `${at}.type`, `must look like Domain.Class.v1, got ${describe(event.type)}`);
      if (!isPlainObject(event.data)) this.fail(method, `${at}.data`, `must be a plain object, got ${describe(event.data)}`);
      if (event.metadata !== undefined && !isPlainObject(event.metadata))
        this.fail(method, `${at}.metadata`, `must be a plain object when given, got ${describe(event.metadata)}`);
    });
  }

  snapshot(snapshot: NewSnapshot | undefined): void {
    if (!isObject(snapshot)) this.fail('saveSnapshot', 'snapshot', `must be { streamName, version, type, data }, got ${describe(snapshot)}`);
    this.stream('saveSnapshot', 'snapshot.streamName', snapshot.streamName);
    this.integer('saveSnapshot', 'snapshot.version', snapshot.version, 0);
    if (typeof snapshot.type !== 'string' || snapshot.type.trim() === '')
      this.fail('saveSnapshot', 'snapshot.type', `must be a non-empty string, got ${describe(snapshot.type)}`);
    if (!isPlainObject(snapshot.data)) this.fail('saveSnapshot', 'snapshot.data', `must be a plain object, got ${describe(snapshot.data)}`);
  }

  private fail(method: string, argument: string, problem: string): never {
    throw new InvalidEventStoreRequestError(method, argument, problem);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  if (isObject(value)) return 'an object';
  return String(value);
}
