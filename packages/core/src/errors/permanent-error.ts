/**
 * Errors that retrying cannot fix. A subscription dead-letters a message whose handler throws one
 * on the first failure instead of retrying it: a refused command stays refused however often it
 * is handled. `ValidationError` (invalid fields, failed invariants) is one by nature; users mark
 * their own business errors by extending `PermanentError` or with `markPermanent(ErrorClass)`.
 */
import { ValidationError } from './validation.error.js';

const PERMANENT = Symbol.for('protean-ts.permanent-error');

/** Extend it for business refusals (`class OrderAlreadyShipped extends PermanentError {}`). */
export class PermanentError extends Error {
  static readonly [PERMANENT] = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Marks an error class (and its subclasses) as permanent: its messages are not retried. */
export function markPermanent(...errorClasses: (abstract new (...args: never[]) => Error)[]): void {
  for (const cls of errorClasses) {
    if (typeof cls !== 'function' || !(cls.prototype instanceof Error || cls === Error)) {
      throw new TypeError(`markPermanent expects error classes, got ${String((cls as { name?: string })?.name ?? cls)}`);
    }
    Object.defineProperty(cls, PERMANENT, { value: true, configurable: true });
  }
}

/** True for errors retrying cannot fix: ValidationError, PermanentError and marked classes, or an AggregateError of only such. */
export function isPermanentError(error: unknown): boolean {
  if (error instanceof ValidationError) return true;
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.every(isPermanentError);
  if (!(error instanceof Error)) return false;
  // Static properties are inherited by subclasses, so marking a base class covers its family.
  return (error.constructor as unknown as Record<symbol, unknown>)[PERMANENT] === true;
}
