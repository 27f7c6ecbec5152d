import { describe, expect, it } from 'vitest';
import { BaseEntity, Domain, field, ValidationError } from '../../src/index.js';

describe('ValidationError', () => {
  it('lists every field with its reasons', () => {
    const error = new ValidationError({ customer: ['is required'], quantity: ['must be at least 1', 'must be an integer'] }, 'Order');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ValidationError');
    expect(error.element).toBe('Order');
    expect(error.errors).toEqual({ customer: ['is required'], quantity: ['must be at least 1', 'must be an integer'] });
    expect(error.message).toBe('Invalid Order: customer: is required; quantity: must be at least 1, must be an integer');
  });

  it('works without an element name, and can be attributed later', () => {
    const error = new ValidationError({ lines: ['an order needs lines'] });
    expect(error.message).toBe('Invalid: lines: an order needs lines');
    expect(error.withElement('Order').message).toBe('Invalid Order: lines: an order needs lines');
  });

  it('puts problems of the whole object first, without a field name', () => {
    const domain = new Domain('Whole');
    @domain.entity({ partOf: class {} as never })
    class Thing extends BaseEntity {}
    expect(() => Thing.fromPlain(null as never)).toThrow('Invalid Thing: Thing must be built from a plain object, got null');
  });

  it('is what creation throws, with all fields together', () => {
    const domain = new Domain('Errors');
    @domain.entity({ partOf: class {} as never })
    class Person extends BaseEntity {
      @field.string({ required: true }) name!: string;
      @field.integer({ min: 0 }) age?: number;
      @field.string({ pattern: /@/ }) email?: string;
    }
    try {
      Person.create({ name: '', age: -1, email: 'nope' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors).toEqual({ name: ['is required'], age: ['must be at least 0'], email: ['must match /@/'] });
    }
  });
});
