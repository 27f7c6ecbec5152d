/**
 * Collects bound parameters while a statement is assembled, so each `?` sits next to the value it
 * stands for. Values are only strings, numbers, booleans or null: casts in the SQL give the types.
 */
export type SqlValue = string | number | boolean | null;

export class SqlParams {
  readonly values: SqlValue[] = [];

  /** Appends a value and returns its placeholder. */
  add(value: SqlValue): string {
    this.values.push(value);
    return '?';
  }
}
