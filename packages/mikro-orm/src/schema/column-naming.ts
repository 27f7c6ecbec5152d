/**
 * Column and table naming rules: camelCase properties become snake_case columns, and every
 * identifier is double-quoted in generated SQL so reserved words (`order`, `user`) work as names.
 */

/** `shippingAddress` → `shipping_address`, `HTTPCode` → `http_code`, `line2` → `line2`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** Double-quotes one identifier, doubling embedded quotes. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"schema"."table"`. */
export function qualifiedName(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}

/** Columns the framework adds to tables; user fields may not map onto these names. */
export const VERSION_COLUMN = '_version';
export const POSITION_COLUMN = '_position';
