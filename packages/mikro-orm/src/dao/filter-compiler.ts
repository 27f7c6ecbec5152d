/**
 * Compiles a repository query (`{ status: 'PENDING', total: { $gte: 10 } }`, orderBy, paging)
 * into a WHERE / ORDER BY / LIMIT clause with bound parameters. The semantics match the memory
 * provider: NULL only matches `$eq: null` / `$ne: null`, `$like` is LIKE with `\` escaping,
 * ascending order puts NULLs last. Unknown fields and operators raise `InvalidQueryError`.
 */
import { InvalidQueryError } from '@protean-ts/core';
import type { FieldDefinition, Filter, FilterOperator, QuerySpec } from '@protean-ts/core';
import { quoteIdent as q } from '../schema/column-naming.js';
import type { ColumnModel, TableModel } from '../schema/table-model.js';

export interface CompiledClause {
  sql: string;
  params: unknown[];
}

const OPERATORS: ReadonlySet<string> = new Set<FilterOperator>(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$like']);
const COMPARISON: Record<string, string> = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' };
const TEXT_KINDS = new Set(['string', 'text', 'identifier', 'reference', 'status']);
const JSON_KINDS = new Set(['list', 'dict']);

export class FilterCompiler {
  /** Top-level scalar and jsonb fields, by property name, with their column. */
  private readonly columns = new Map<string, ColumnModel>();
  private readonly others = new Map<string, FieldDefinition>();

  constructor(
    private readonly aggregate: string,
    table: TableModel,
    fields: readonly FieldDefinition[],
  ) {
    for (const column of table.columns) if (column.path.length === 1) this.columns.set(column.path[0]!, column);
    for (const field of fields) if (!this.columns.has(field.name)) this.others.set(field.name, field);
  }

  /** ` WHERE …` (or '') for a filter; columns are qualified with alias `t0`. */
  where(filter: Filter | undefined): CompiledClause {
    const parts: string[] = [];
    const params: unknown[] = [];
    for (const [name, condition] of Object.entries(filter ?? {})) {
      const column = this.column(name, 'filter');
      for (const [op, operand] of operatorsOf(condition)) {
        if (!OPERATORS.has(op)) {
          throw new InvalidQueryError(this.aggregate, `unknown operator "${op}" on "${name}"; use one of ${[...OPERATORS].join(', ')}`);
        }
        parts.push(this.condition(column, op, operand, params));
      }
    }
    return { sql: parts.length ? ` WHERE ${parts.join(' AND ')}` : '', params };
  }

  /** ` ORDER BY … LIMIT ? OFFSET ?`; the identity breaks ties so pages never overlap. */
  orderAndPage(spec: QuerySpec, identity: ColumnModel): CompiledClause {
    const params: unknown[] = [];
    let sql = '';
    const keys = Object.entries(spec.orderBy ?? {});
    if (keys.length > 0) {
      const terms = keys.map(([name, direction]) => {
        const column = this.column(name, 'orderBy');
        if (direction !== 'asc' && direction !== 'desc') {
          throw new InvalidQueryError(this.aggregate, `orderBy.${name} must be 'asc' or 'desc', got ${JSON.stringify(direction)}`);
        }
        return `t0.${q(column.name)} ${direction.toUpperCase()}`;
      });
      if (!keys.some(([name]) => name === identity.path[0])) terms.push(`t0.${q(identity.name)} ASC`);
      sql += ` ORDER BY ${terms.join(', ')}`;
    }
    for (const key of ['limit', 'offset'] as const) {
      const value = spec[key];
      if (value === undefined) continue;
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new InvalidQueryError(this.aggregate, `${key} must be a non-negative integer, got ${String(value)}`);
      }
      sql += ` ${key.toUpperCase()} ?`;
      params.push(value);
    }
    return { sql, params };
  }

  private column(name: string, clause: 'filter' | 'orderBy'): ColumnModel {
    const column = this.columns.get(name);
    if (column) {
      if (clause === 'orderBy' && JSON_KINDS.has(column.field.kind)) {
        throw new InvalidQueryError(this.aggregate, `orderBy names "${name}", a ${column.field.kind} field; order by a scalar field`);
      }
      return column;
    }
    const other = this.others.get(name);
    if (other) {
      throw new InvalidQueryError(
        this.aggregate,
        `${clause} names "${name}", a ${other.kind} field, which cannot be ${clause === 'filter' ? 'filtered' : 'ordered'} on; use a scalar field`,
      );
    }
    const known = [...this.columns.keys()].join(', ');
    throw new InvalidQueryError(this.aggregate, `${clause} names "${name}", which is not a field (fields: ${known})`);
  }

  private condition(column: ColumnModel, op: string, rawOperand: unknown, params: unknown[]): string {
    const col = `t0.${q(column.name)}`;
    const name = column.path[0]!;
    const json = JSON_KINDS.has(column.field.kind);
    if (json && op !== '$eq' && op !== '$ne') {
      throw new InvalidQueryError(this.aggregate, `${op} on "${name}" (a ${column.field.kind} field) is not supported; only $eq and $ne compare whole values`);
    }
    if (op === '$in' || op === '$nin') {
      if (!Array.isArray(rawOperand)) throw new InvalidQueryError(this.aggregate, `${op} on "${name}" needs an array`);
      params.push(rawOperand.map((v) => this.operand(column, v)).filter((v) => v !== null));
      // NULL never matches either way, as in the memory provider.
      return op === '$in' ? `${col} = ANY(?)` : `(${col} IS NOT NULL AND NOT (${col} = ANY(?)))`;
    }
    const operand = this.operand(column, rawOperand);
    if (op === '$eq' || op === '$ne') {
      if (operand === null) return op === '$eq' ? `${col} IS NULL` : `${col} IS NOT NULL`;
      params.push(operand);
      return `${col} ${op === '$eq' ? '=' : '<>'} ?${json ? '::jsonb' : ''}`;
    }
    if (operand === null) throw new InvalidQueryError(this.aggregate, `${op} on "${name}" needs a value, not null`);
    if (op === '$like') {
      if (typeof operand !== 'string' || !TEXT_KINDS.has(column.field.kind)) {
        throw new InvalidQueryError(this.aggregate, `$like on "${name}" needs a string pattern and a text field`);
      }
      params.push(operand);
      return `${col} LIKE ?`;
    }
    params.push(operand);
    return `${col} ${COMPARISON[op]} ?`;
  }

  /** An operand in the stored form: dates as ISO strings (calendar dates as YYYY-MM-DD). */
  private operand(column: ColumnModel, value: unknown): unknown {
    if (value === undefined || value === null) return null;
    if (value instanceof Date) return column.field.kind === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
    return column.codec.encode(value);
  }
}

function operatorsOf(condition: unknown): [string, unknown][] {
  const isOperatorObject =
    typeof condition === 'object' &&
    condition !== null &&
    !Array.isArray(condition) &&
    !(condition instanceof Date) &&
    Object.keys(condition).length > 0 &&
    Object.keys(condition).every((key) => key.startsWith('$'));
  return isOperatorObject ? Object.entries(condition as Record<string, unknown>) : [['$eq', condition]];
}
