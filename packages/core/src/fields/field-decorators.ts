/**
 * The `field.*` decorator factories. Each one records a FieldDefinition on the class and
 * installs the validating accessor; the property's declared type is checked against the kind
 * (`@field.integer() name!: string` does not compile).
 */
import type {
  ClassRef,
  DateTimeFieldOptions,
  DecimalFieldOptions,
  FieldDefinition,
  FieldKind,
  FieldOptions,
  LazyClassRef,
  ListFieldOptions,
  NumberFieldOptions,
  StatusFieldOptions,
  StringFieldOptions,
} from './field-definition.js';
import { installFieldAccessor } from './field-accessor.js';
import { hasIdentity, recordField } from './field-metadata.js';
import { FieldDeclarationError } from '../errors/field-declaration.error.js';
import { refuseStandardDecorator } from './decorator-settings.js';

/**
 * A property decorator that only accepts properties whose type fits `V`. Properties TypeScript
 * cannot see from outside (protected/private) are accepted as they are.
 */
export type TypedFieldDecorator<V> = <K extends string>(target: { [P in K]?: V | null }, key: K) => void;

type CommonOptions = Omit<FieldOptions, never>;

/** Members of the element bases a field must not shadow. */
const RESERVED = new Set(['_version', '_metadata', 'raise', 'equals', 'toPlain', 'toJSON', 'atomicChange', 'pendingEvents', 'clearPendingEvents']);

function checkName(target: object, key: string, kind: FieldKind, identifier: boolean): void {
  if (RESERVED.has(key)) throw new FieldDeclarationError(key, kind, `"${key}" is a member of the element base classes; rename the field`);
  // `__proto__`, `constructor`, `toString`, `valueOf`…: every object has them, and a field hiding one breaks the object itself.
  if (key in Object.prototype) throw new FieldDeclarationError(key, kind, `"${key}" is a member every JavaScript object has; rename the field`);
  if (key === 'id' && !identifier && hasIdentity(target.constructor as never)) {
    throw new FieldDeclarationError(
      key,
      kind,
      'a field named "id" is the identity: declare it with { identifier: true }, or leave it out to get the implicit uuid id',
    );
  }
}

function declare<V>(kind: FieldKind, options: object, extra: Partial<FieldDefinition> = {}): TypedFieldDecorator<V> {
  const o = options as FieldOptions;
  return (target: object, key: string) => {
    refuseStandardDecorator(`@field.${kind}()`, key);
    if (typeof key !== 'string') throw new FieldDeclarationError(String(key), kind, 'field names must be strings, not symbols');
    checkName(target, key, kind, o.identifier === true);
    const base = { ...o, ...extra } as Record<string, unknown>;
    for (const k of Object.keys(base)) if (base[k] === undefined) delete base[k];
    const definition: FieldDefinition = {
      ...base,
      name: key,
      kind,
      required: o.required === true || (o.identifier === true && kind !== 'identifier'),
      unique: o.unique === true || o.identifier === true,
      identifier: o.identifier === true,
      implicit: false,
    };
    recordField(target, definition);
    installFieldAccessor(target, key);
  };
}

/** PostgreSQL's largest varchar(n) and numeric precision; larger settings could never be stored. */
const MAX_VARCHAR_LENGTH = 10_485_760;
const MAX_NUMERIC_PRECISION = 1000;

function checkWhole(kind: FieldKind, name: string, value: unknown, lo: number, hi: number): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < lo || value > hi)) {
    throw new FieldDeclarationError('?', kind, `${name} must be a whole number from ${lo} to ${hi}, got ${String(value)}`);
  }
}

function checkRange(kind: FieldKind, lo: number | undefined, hi: number | undefined, what: string): void {
  for (const [name, bound] of [
    ['min', lo],
    ['max', hi],
  ] as const) {
    if (what === 'value' && bound !== undefined && (typeof bound !== 'number' || !Number.isFinite(bound))) {
      throw new FieldDeclarationError('?', kind, `${name} must be a finite number, got ${String(bound)}`);
    }
  }
  if (lo !== undefined && hi !== undefined && lo > hi) {
    throw new FieldDeclarationError('?', kind, `${what}: the minimum ${lo} is above the maximum ${hi}`);
  }
}

function statusValues(values: StatusFieldOptions['values']): readonly string[] {
  const list = Array.isArray(values) ? [...values] : Object.values(values as Record<string, string>);
  if (list.length === 0 || list.some((v) => typeof v !== 'string')) {
    throw new FieldDeclarationError('?', 'status', 'values must be a non-empty array of strings or a string enum');
  }
  return Object.freeze(list);
}

const LIST_ITEM_KINDS: ReadonlySet<unknown> = new Set(['string', 'text', 'integer', 'float', 'decimal', 'boolean', 'date', 'datetime', 'identifier', 'dict']);

export const field = {
  /** Short text; `maxLength` defaults to 255. */
  string(options: StringFieldOptions = {}): TypedFieldDecorator<string> {
    checkWhole('string', 'minLength', options.minLength, 0, MAX_VARCHAR_LENGTH);
    checkWhole('string', 'maxLength', options.maxLength, 1, MAX_VARCHAR_LENGTH);
    checkRange('string', options.minLength, options.maxLength ?? 255, 'length');
    return declare('string', { ...options, maxLength: options.maxLength ?? 255 });
  },
  /** Text without a maximum length. */
  text(options: StringFieldOptions = {}): TypedFieldDecorator<string> {
    checkWhole('text', 'minLength', options.minLength, 0, Number.MAX_SAFE_INTEGER);
    checkWhole('text', 'maxLength', options.maxLength, 0, Number.MAX_SAFE_INTEGER);
    checkRange('text', options.minLength, options.maxLength, 'length');
    return declare('text', options);
  },
  integer(options: NumberFieldOptions = {}): TypedFieldDecorator<number> {
    checkRange('integer', options.min, options.max, 'value');
    return declare('integer', options);
  },
  float(options: NumberFieldOptions = {}): TypedFieldDecorator<number> {
    checkRange('float', options.min, options.max, 'value');
    return declare('float', options);
  },
  /** A number stored as SQL `numeric(precision, scale)`; values are rounded to `scale` digits. */
  decimal(options: DecimalFieldOptions = {}): TypedFieldDecorator<number> {
    checkRange('decimal', options.min, options.max, 'value');
    checkWhole('decimal', 'precision', options.precision, 1, MAX_NUMERIC_PRECISION);
    checkWhole('decimal', 'scale', options.scale, 0, MAX_NUMERIC_PRECISION);
    if (options.scale !== undefined && options.precision !== undefined && options.scale > options.precision) {
      throw new FieldDeclarationError('?', 'decimal', `scale ${options.scale} is larger than precision ${options.precision}`);
    }
    return declare('decimal', options);
  },
  boolean(options: CommonOptions = {}): TypedFieldDecorator<boolean> {
    return declare('boolean', options);
  },
  /** A calendar date: a `Date` at midnight UTC; accepts ISO strings. */
  date(options: CommonOptions = {}): TypedFieldDecorator<Date> {
    return declare('date', options);
  },
  /** A point in time; `autoNow` fills it with the creation time. */
  datetime(options: DateTimeFieldOptions = {}): TypedFieldDecorator<Date> {
    return declare('datetime', options);
  },
  /** An identity value: any non-empty string (uuid by default when generated); numbers become strings. */
  identifier(options: CommonOptions = {}): TypedFieldDecorator<string> {
    return declare('identifier', options);
  },
  /** A list of scalars (`of: 'string'`) or of value objects (`of: () => Money`). */
  list(options: ListFieldOptions): TypedFieldDecorator<readonly unknown[]> {
    if (options?.of === undefined)
      throw new FieldDeclarationError('?', 'list', 'give the item type: field.list({ of: "string" }) or { of: () => ValueObjectClass }');
    if (typeof options.of !== 'function' && !LIST_ITEM_KINDS.has(options.of)) {
      throw new FieldDeclarationError(
        '?',
        'list',
        `of must be one of ${[...LIST_ITEM_KINDS].join(', ')} or () => ValueObjectClass, got ${JSON.stringify(options.of)}`,
      );
    }
    return declare('list', options);
  },
  /** A plain JSON object. */
  dict(options: CommonOptions = {}): TypedFieldDecorator<object> {
    return declare('dict', options);
  },
  valueObject<V>(target: () => ClassRef<V>, options: CommonOptions = {}): TypedFieldDecorator<V> {
    return declare('valueObject', options, { target: target as LazyClassRef });
  },
  hasOne<E>(target: () => ClassRef<E>, options: CommonOptions = {}): TypedFieldDecorator<E> {
    return declare('hasOne', options, { target: target as LazyClassRef });
  },
  hasMany<E>(target: () => ClassRef<E>, options: CommonOptions = {}): TypedFieldDecorator<readonly E[]> {
    return declare('hasMany', options, { target: target as LazyClassRef });
  },
  /** The id of another aggregate, kept as a string. */
  reference(target: LazyClassRef, options: CommonOptions = {}): TypedFieldDecorator<string> {
    return declare('reference', options, { target });
  },
  /** One of `values`; with `transitions`, an existing object may only move along them. */
  status(options: StatusFieldOptions): TypedFieldDecorator<string> {
    const values = statusValues(options?.values ?? []);
    return declare('status', options, { values, transitions: options.transitions });
  },
};
