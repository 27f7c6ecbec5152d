/**
 * The hooks a field accessor calls on its instance. Elements implement them; keeping the
 * symbols here lets fields/ install accessors without importing elements/ (no cycle).
 */
export const FIELD_READ: unique symbol = Symbol('protean:fieldRead');
export const FIELD_WRITE: unique symbol = Symbol('protean:fieldWrite');

export interface FieldHost {
  [FIELD_READ](name: string): unknown;
  [FIELD_WRITE](name: string, value: unknown): void;
}

export function isFieldHost(value: unknown): value is FieldHost {
  return typeof value === 'object' && value !== null && typeof (value as Partial<FieldHost>)[FIELD_WRITE] === 'function';
}
