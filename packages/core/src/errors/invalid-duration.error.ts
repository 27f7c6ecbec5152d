import { PermanentError } from './permanent-error.js';

/**
 * A delay given as something other than milliseconds or `<n>ms|s|m|h|d`. Permanent: a handler
 * that makes this mistake makes it on every retry, so its message is dead-lettered at once.
 */
export class InvalidDurationError extends PermanentError {
  constructor(what: string, value: unknown) {
    super(`${what}: ${shown(value)} is not a duration; give a number of milliseconds (>= 0) or a string like '500ms', '30s', '15m', '2h' or '14d'`);
  }
}

/** JSON shows NaN and Infinity as null: numbers are shown as they are. */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
}
