import { describe, expect, it } from 'vitest';
import { InvalidStreamNameError } from '../../src/errors/invalid-stream-name.error.js';
import { EventStoreChecks } from '../../src/ports/event-store-checks.js';
import { streamName } from '../../src/ports/stream-names.js';

describe('a NUL character in a stream name', () => {
  it('is refused by streamName() with a named error', () => {
    expect(() => streamName('shop', 'order', 'a\u0000b')).toThrow(InvalidStreamNameError);
    expect(() => streamName('shop', 'order', 'a\u0000b')).toThrow(/NUL/);
  });

  it('is refused by the event store checks before PostgreSQL sees it', () => {
    expect(() => new EventStoreChecks().stream('readStream', 'stream', 'shop::order-a\u0000b')).toThrow(InvalidStreamNameError);
    expect(() => new EventStoreChecks().stream('readStream', 'stream', 'shop::order-a\u0000b')).toThrow(/stream must not contain a NUL/);
    expect(() => new EventStoreChecks().stream('readStream', 'stream', 'shop::order-ab')).not.toThrow();
  });
});
