/**
 * Canonical JSON: object keys sorted, no whitespace, dates as ISO strings. Two equal values
 * always give the same bytes, which is what makes an envelope checksum verifiable after the
 * message crossed a database and a broker that may reorder keys.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set()) ?? 'null';
}

// Returns undefined for values JSON leaves out of objects (undefined, functions, symbols).
function write(value: unknown, ancestors: Set<object>): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'null' : JSON.stringify(value.toISOString());
  const obj = value as object;
  if (ancestors.has(obj)) throw new TypeError('canonicalJson: the value contains a cycle and cannot be serialized');
  ancestors.add(obj);
  try {
    const withJson = obj as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return write(withJson.toJSON(), ancestors);
    if (Array.isArray(obj)) return `[${obj.map((item) => write(item, ancestors) ?? 'null').join(',')}]`;
    const entries: string[] = [];
    for (const key of Object.keys(obj).sort()) {
      const item = write((obj as Record<string, unknown>)[key], ancestors);
      if (item !== undefined) entries.push(`${JSON.stringify(key)}:${item}`);
    }
    return `{${entries.join(',')}}`;
  } finally {
    ancestors.delete(obj);
  }
}
