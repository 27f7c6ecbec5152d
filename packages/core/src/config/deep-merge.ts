/**
 * Deep merge for configuration layers (defaults ← file ← environment table ← overrides):
 * tables merge key by key, everything else (arrays included) is replaced by the later layer.
 * Tables are built without a prototype: keys come from users, and `__proto__` or `toString`
 * must stay plain keys (validation reports them), never reach Object.prototype.
 */
import { isPlainObject } from './substitute-env.js';

export function deepMerge<T>(base: T, ...layers: unknown[]): T {
  let result: unknown = base;
  for (const layer of layers) result = mergeTwo(result, layer);
  return result as T;
}

function mergeTwo(base: unknown, over: unknown): unknown {
  if (over === undefined) return clone(base);
  if (!isPlainObject(base) || !isPlainObject(over)) return clone(over);
  const out = clone(base) as Record<string, unknown>;
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    out[key] = Object.hasOwn(out, key) ? mergeTwo(out[key], value) : clone(value);
  }
  return out;
}

function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [key, child] of Object.entries(value)) out[key] = clone(child);
    return out;
  }
  return value;
}
