/**
 * The metadata every field decorator records. It is the one description of a field that
 * validation, the typed constructors and every persistence adapter (memory, MikroORM) read,
 * so adapters never inspect domain classes directly.
 */
export type FieldKind =
  | 'string'
  | 'text'
  | 'integer'
  | 'float'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'identifier'
  | 'list'
  | 'dict'
  | 'valueObject'
  | 'hasOne'
  | 'hasMany'
  | 'reference'
  | 'status';

/** A class constructor; element classes are looked up lazily (`() => OrderLine`) to allow cycles. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ClassRef<T = unknown> = new (...args: any[]) => T;
export type LazyClassRef<T = unknown> = () => ClassRef<T>;

/** Scalar kinds a `list` may hold, or a value-object class for a list of value objects. */
export type ListItemType = 'string' | 'text' | 'integer' | 'float' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'identifier' | 'dict' | LazyClassRef;

export interface FieldOptions {
  /** A missing value (undefined or null; '' for strings) is a validation error. */
  required?: boolean;
  /** A value or a factory called once per new object. */
  default?: unknown;
  /** Persistence adapters create a unique index; the memory provider checks it on add. */
  unique?: boolean;
  /** Marks the identity field; without one, an element gets an implicit `id` identifier. */
  identifier?: boolean;
  /** Human text used in error messages and docs. */
  description?: string;
}

export interface StringFieldOptions extends FieldOptions {
  minLength?: number;
  /** Defaults to 255 for `string`; `text` has no maximum. */
  maxLength?: number;
  choices?: readonly string[];
  pattern?: RegExp;
}

export interface NumberFieldOptions extends FieldOptions {
  min?: number;
  max?: number;
}

export interface DecimalFieldOptions extends FieldOptions {
  min?: number;
  max?: number;
  /** Total digits and digits after the point, used by SQL adapters (`numeric(precision, scale)`). */
  precision?: number;
  scale?: number;
}

export interface DateTimeFieldOptions extends FieldOptions {
  /** Set to the current time when the object is created without a value. */
  autoNow?: boolean;
}

export interface ListFieldOptions extends FieldOptions {
  of: ListItemType;
}

export interface StatusFieldOptions extends FieldOptions {
  /** The allowed values: an array, or a string enum object. */
  values: readonly string[] | Record<string, string>;
  /** Allowed moves: `{ PENDING: ['CONFIRMED', 'CANCELLED'] }`. Without it, any move is allowed. */
  transitions?: Record<string, readonly string[]>;
}

/** The recorded description of one field on one element class. */
export interface FieldDefinition {
  /** The property name on the class (camelCase). */
  readonly name: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly unique: boolean;
  readonly identifier: boolean;
  /** True for fields the framework adds (the implicit `id`). */
  readonly implicit: boolean;
  readonly default?: unknown;
  readonly description?: string;
  // kind-specific settings; only the ones that apply to `kind` are set
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly choices?: readonly string[];
  readonly pattern?: RegExp;
  readonly min?: number;
  readonly max?: number;
  readonly precision?: number;
  readonly scale?: number;
  readonly autoNow?: boolean;
  readonly of?: ListItemType;
  /** valueObject / hasOne / hasMany / reference: the target element class. */
  readonly target?: LazyClassRef;
  /** status: allowed values and transitions. */
  readonly values?: readonly string[];
  readonly transitions?: Record<string, readonly string[]>;
}
