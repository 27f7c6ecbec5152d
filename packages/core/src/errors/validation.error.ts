/**
 * The one error for bad data on domain elements: every bad field with every reason, so a
 * caller fixes all problems in one round instead of discovering them one at a time.
 */
export type FieldErrors = Record<string, string[]>;

export class ValidationError extends Error {
  /** Field name (or dotted path for nested values, e.g. `lines.0.sku`) to its reasons. */
  readonly errors: FieldErrors;
  /** The element class name, when known (`Order`). */
  readonly element: string | undefined;

  constructor(errors: FieldErrors, element?: string, options?: { cause?: unknown }) {
    super(ValidationError.describe(errors, element), options);
    this.name = 'ValidationError';
    this.errors = errors;
    this.element = element;
  }

  /** The same errors attributed to an element, used when an invariant throws an anonymous one. */
  withElement(element: string): ValidationError {
    return this.element === element ? this : new ValidationError(this.errors, element, { cause: this.cause });
  }

  /** `Invalid Order: customer: is required; quantity: must be at least 1`. */
  static describe(errors: FieldErrors, element?: string): string {
    // The empty key holds problems of the object as a whole (e.g. it was not an object at all).
    const parts = Object.entries(errors).map(([field, reasons]) => (field ? `${field}: ${reasons.join(', ')}` : reasons.join(', ')));
    return `Invalid${element ? ` ${element}` : ''}: ${parts.join('; ') || 'no details'}`;
  }
}

/**
 * Adds `reason` under `key`, creating the list on first use. Keys come from user input (an
 * unknown key, a dict key), so `__proto__`, `constructor` or `toString` must land as own
 * entries, never reach what Object.prototype holds under those names.
 */
export function addFieldError(errors: FieldErrors, key: string, reason: string): void {
  if (Object.hasOwn(errors, key)) errors[key]!.push(reason);
  else Object.defineProperty(errors, key, { value: [reason], enumerable: true, writable: true, configurable: true });
}

/** Copies nested errors under a path prefix: `street` under `shippingAddress` becomes `shippingAddress.street`. */
export function mergeFieldErrors(into: FieldErrors, from: FieldErrors, prefix = ''): void {
  for (const [key, reasons] of Object.entries(from)) {
    const path = prefix ? (key ? `${prefix}.${key}` : prefix) : key;
    for (const reason of Array.isArray(reasons) ? reasons : [String(reasons)]) addFieldError(into, path, reason);
  }
}
