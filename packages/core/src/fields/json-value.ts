/**
 * The copy a `dict` field keeps of its value: plain JSON only (objects, arrays, strings, finite
 * numbers, booleans, null), so what the element holds is exactly what JSON, canonical JSON and a
 * jsonb column give back. Anything JSON would drop or turn into something else (undefined, NaN,
 * Infinity, a Date, a Map, a hole in an array, a bigint) is refused with the path to it.
 */
import { describe, isPlainObject, unstorableCharacter } from './describe-value.js';
import { nestingLeft, TOO_DEEP } from './nesting-depth.js';

export type JsonCopy = { ok: true; value: unknown } | { ok: false; at: string; reason: string };

class NotJson {
  constructor(
    readonly at: string,
    readonly reason: string,
  ) {}
}

const join = (at: string, key: string | number): string => (at ? `${at}.${key}` : String(key));

/** Own key `key` on a new plain object: `__proto__` is a key like any other, never the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function copy(raw: unknown, at: string, levelsLeft: number): unknown {
  switch (typeof raw) {
    case 'string': {
      const problem = unstorableCharacter(raw);
      if (problem) throw new NotJson(at, problem);
      return raw;
    }
    case 'number':
      if (!Number.isFinite(raw)) throw new NotJson(at, `${raw} is not a JSON number`);
      return raw === 0 ? 0 : raw;
    case 'boolean':
      return raw;
    case 'object':
      break;
    default:
      throw new NotJson(at, `${describe(raw)} is not a JSON value${raw === undefined ? ' (use null, or leave the key out)' : ''}`);
  }
  if (raw === null) return null;
  if (levelsLeft <= 0) throw new NotJson(at, TOO_DEEP);
  if (Array.isArray(raw)) {
    // Object.keys counts the items that exist, so a sparse array of length 1e9 is refused at once.
    if (Object.keys(raw).length < raw.length) throw new NotJson(at, 'is an array with holes (missing items); fill them with null');
    const items: unknown[] = [];
    for (let i = 0; i < raw.length; i++) items.push(copy(raw[i], join(at, i), levelsLeft - 1));
    return items;
  }
  if (!isPlainObject(raw)) throw new NotJson(at, `${describe(raw)} is not plain JSON (${raw instanceof Date ? 'store its ISO string' : 'use a plain object'})`);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    const problem = unstorableCharacter(key);
    if (problem) throw new NotJson(at, `has a key that ${problem}`);
    setOwn(out, key, copy(raw[key], join(at, key), levelsLeft - 1));
  }
  return out;
}

/** A deep copy of `raw` as plain JSON, or the first place (`a.b.0`, relative to the field) that is not JSON. */
export function copyJsonValue(raw: unknown): JsonCopy {
  try {
    return { ok: true, value: copy(raw, '', nestingLeft()) };
  } catch (error) {
    if (error instanceof NotJson) return { ok: false, at: error.at, reason: error.reason };
    throw error;
  }
}
