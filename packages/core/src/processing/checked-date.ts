import { InvalidDueTimeError } from '../errors/invalid-due-time.error.js';

/** `value` when it is a valid Date; else a clear error naming `what`. */
export function checkedDate(value: unknown, what: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new InvalidDueTimeError(`${what} must be a valid Date, got ${value instanceof Date ? 'an invalid Date' : (JSON.stringify(value) ?? String(value))}`);
  }
  return value;
}
