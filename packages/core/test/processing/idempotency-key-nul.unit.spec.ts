import { describe, expect, it } from 'vitest';
import { InvalidProcessOptionsError } from '../../src/errors/invalid-process-options.error.js';
import { checkedIdempotencyKey } from '../../src/processing/command-outcomes.js';

describe('an idempotency key with a NUL character', () => {
  it('is refused with a named error before PostgreSQL sees it', () => {
    expect(() => checkedIdempotencyKey('order\u0000-1', 'PlaceOrder')).toThrow(InvalidProcessOptionsError);
    expect(() => checkedIdempotencyKey('order\u0000-1', 'PlaceOrder')).toThrow(/idempotencyKey must not contain a NUL/);
  });

  it('leaves an ordinary key alone', () => {
    expect(checkedIdempotencyKey('order-1', 'PlaceOrder')).toBe('order-1');
  });
});
