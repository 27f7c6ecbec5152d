/**
 * Moves values between an element's plain form and table rows: a plain object becomes one row of
 * bound parameters (value objects spread over their prefixed columns), and a selected row (text
 * form for the aggregate, JSON form for child rows) becomes a plain object again.
 */
import type { ColumnModel, EmbeddedModel, TableModel } from '../schema/table-model.js';

export type PlainObject = Record<string, unknown>;
export type Row = Record<string, unknown>;

/** The key under which a selected row carries the child rows of one hasOne/hasMany field. */
export function childKey(field: string): string {
  return `__${field}`;
}

function readPath(plain: PlainObject, path: readonly string[]): unknown {
  let value: unknown = plain;
  for (const key of path) {
    if (value === null || value === undefined || typeof value !== 'object') return null;
    value = (value as PlainObject)[key];
  }
  return value ?? null;
}

function writePath(target: PlainObject, path: readonly string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    let next = node[key];
    if (next === null || next === undefined || typeof next !== 'object') {
      next = {};
      node[key] = next;
    }
    node = next as PlainObject;
  }
  node[path[path.length - 1]!] = value;
}

export class RowMapper {
  /** Value-object groups, innermost first, so an absent outer value object wins over its parts. */
  private readonly embedded: readonly EmbeddedModel[];
  private readonly flat: boolean;

  constructor(readonly table: TableModel) {
    this.embedded = [...table.embedded].sort((a, b) => b.path.length - a.path.length);
    this.flat = table.columns.every((c) => c.path.length === 1);
  }

  /** Bound parameters for the table's columns, in `table.columns` order. */
  params(plain: PlainObject): unknown[] {
    const columns = this.table.columns;
    const out = new Array<unknown>(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const column: ColumnModel = columns[i]!;
      const value = column.path.length === 1 ? plain[column.path[0]!] : readPath(plain, column.path);
      out[i] = column.codec.encode(value ?? null);
    }
    return out;
  }

  /** The plain form of one row; child rows are decoded by the caller (they need their own mapper). */
  plain(row: Row): PlainObject {
    const out: PlainObject = {};
    for (const column of this.table.columns) {
      const value = column.codec.decode(row[column.name]);
      if (this.flat || column.path.length === 1) out[column.path[0]!] = value;
      else writePath(out, column.path, value);
    }
    for (const group of this.embedded) {
      if (group.columns.every((c) => row[c.name] === null || row[c.name] === undefined)) writePath(out, group.path, null);
    }
    return out;
  }
}
