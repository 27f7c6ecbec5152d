/**
 * How a rejected value is named in a reason, and what counts as a plain object. Shared by every
 * coercion so a message never prints more than a short prefix of user input.
 */
export function describe(raw: unknown): string {
  if (raw === null) return 'null';
  if (Array.isArray(raw)) return 'an array';
  if (raw instanceof Date) return 'a Date';
  if (typeof raw === 'string') return `"${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}"`;
  if (typeof raw === 'object') return `an object (${constructorName(raw)})`;
  if (typeof raw === 'function') return 'a function';
  if (typeof raw === 'symbol') return 'a symbol';
  const text = String(raw);
  return `${typeof raw} ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}

// `constructor` may be anything on a hostile object (an own key, a getter): only a function's name is trusted.
function constructorName(raw: object): string {
  const proto: unknown = Object.getPrototypeOf(raw);
  if (proto === null) return 'Object';
  const ctor = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value as unknown;
  return typeof ctor === 'function' && typeof ctor.name === 'string' ? ctor.name || 'Object' : 'Object';
}

export function isPlainObject(raw: unknown): raw is Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null) return false;
  const proto = Object.getPrototypeOf(raw);
  return proto === Object.prototype || proto === null;
}

/**
 * Strings PostgreSQL (text, varchar, jsonb) and JSON consumers cannot hold as given: a NUL
 * character is refused by PostgreSQL, and a lone UTF-16 surrogate is replaced by U+FFFD on its
 * way to UTF-8. Either would change the value after validation, so both are refused up front.
 */
export function unstorableCharacter(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed())
    return 'contains an unpaired UTF-16 surrogate, which is not valid Unicode and cannot be stored';
  return undefined;
}
