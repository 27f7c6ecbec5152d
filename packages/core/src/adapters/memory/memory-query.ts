/**
 * Filtering and ordering of stored plain records for the memory DAO, with PostgreSQL's
 * semantics so tests behave the same on both: NULL only matches `$eq: null` / `$ne: null`,
 * `$like` is case-sensitive with `%` and `_`, ascending order puts NULLs last, descending first.
 */
import { InvalidQueryError } from '../../errors/invalid-query.error.js';
import type { FilterOperator, QuerySpec } from '../../ports/aggregate-dao.js';
import type { FieldDefinition } from '../../fields/field-definition.js';
import type { PlainRecord } from './memory-tables.js';

const OPERATORS: ReadonlySet<string> = new Set<FilterOperator>(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$like']);

export type RecordPredicate = (data: PlainRecord) => boolean;

/** Compiles a filter once (checking fields and operators) into a predicate over plain records. */
export function compileFilter(aggregate: string, fields: ReadonlyMap<string, FieldDefinition>, filter: QuerySpec['filter']): RecordPredicate {
  const tests: RecordPredicate[] = [];
  for (const [name, condition] of Object.entries(filter ?? {})) {
    const field = fields.get(name);
    if (!field) throw new InvalidQueryError(aggregate, `filter names "${name}", which is not a field (fields: ${[...fields.keys()].join(', ')})`);
    for (const [op, operand] of operatorsOf(condition)) {
      if (!OPERATORS.has(op)) throw new InvalidQueryError(aggregate, `unknown operator "${op}" on "${name}"; use one of ${[...OPERATORS].join(', ')}`);
      tests.push(compileCondition(aggregate, field, op as FilterOperator, operand));
    }
  }
  return (data) => tests.every((test) => test(data));
}

/** A comparator for `orderBy`; records equal on every key keep their stored order (stable sort). */
export function compileOrder(
  aggregate: string,
  fields: ReadonlyMap<string, FieldDefinition>,
  orderBy: QuerySpec['orderBy'],
): ((a: PlainRecord, b: PlainRecord) => number) | undefined {
  const keys = Object.entries(orderBy ?? {});
  if (keys.length === 0) return undefined;
  for (const [name, direction] of keys) {
    if (!fields.has(name)) throw new InvalidQueryError(aggregate, `orderBy names "${name}", which is not a field`);
    if (direction !== 'asc' && direction !== 'desc')
      throw new InvalidQueryError(aggregate, `orderBy.${name} must be 'asc' or 'desc', got ${JSON.stringify(direction)}`);
  }
  return (a, b) => {
    for (const [name, direction] of keys) {
      const result = compareForOrder(a[name], b[name], direction);
      if (result !== 0) return result;
    }
    return 0;
  };
}

export function checkPaging(aggregate: string, spec: Pick<QuerySpec, 'limit' | 'offset'>): void {
  for (const key of ['limit', 'offset'] as const) {
    const value = spec[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new InvalidQueryError(aggregate, `${key} must be a non-negative integer, got ${String(value)}`);
    }
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

function compileCondition(aggregate: string, field: FieldDefinition, op: FilterOperator, rawOperand: unknown): RecordPredicate {
  const name = field.name;
  if (op === '$in' || op === '$nin') {
    if (!Array.isArray(rawOperand)) throw new InvalidQueryError(aggregate, `${op} on "${name}" needs an array`);
    const values = rawOperand.map((v) => normalize(field, v));
    const within = (value: unknown) => values.some((candidate) => candidate !== null && compare(value, candidate) === 0);
    return op === '$in' ? (d) => !isNull(d[name]) && within(d[name]) : (d) => !isNull(d[name]) && !within(d[name]);
  }
  const operand = normalize(field, rawOperand);
  if (op === '$eq') return operand === null ? (d) => isNull(d[name]) : (d) => !isNull(d[name]) && compare(d[name], operand) === 0;
  if (op === '$ne') return operand === null ? (d) => !isNull(d[name]) : (d) => !isNull(d[name]) && compare(d[name], operand) !== 0;
  if (operand === null) throw new InvalidQueryError(aggregate, `${op} on "${name}" needs a value, not null`);
  if (op === '$like') {
    if (typeof operand !== 'string') throw new InvalidQueryError(aggregate, `$like on "${name}" needs a string pattern`);
    const pattern = likeToRegExp(operand);
    return (d) => typeof d[name] === 'string' && pattern.test(d[name]);
  }
  const accept = { $gt: (c: number) => c > 0, $gte: (c: number) => c >= 0, $lt: (c: number) => c < 0, $lte: (c: number) => c <= 0 }[op];
  return (d) => !isNull(d[name]) && accept(compare(d[name], operand));
}

/** Filter operands in the stored (plain) form: dates as ISO strings like `toPlain` writes them. */
function normalize(field: FieldDefinition, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return field.kind === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  return value;
}

function isNull(value: unknown): boolean {
  return value === null || value === undefined;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareForOrder(a: unknown, b: unknown, direction: 'asc' | 'desc'): number {
  const sign = direction === 'asc' ? 1 : -1;
  if (isNull(a) || isNull(b)) {
    if (isNull(a) && isNull(b)) return 0;
    // PostgreSQL: NULLS LAST for ascending, NULLS FIRST for descending, i.e. NULL sorts as largest.
    return (isNull(a) ? 1 : -1) * sign;
  }
  return compare(a, b) * sign;
}

function likeToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else if (ch === '%') source += '[\\s\\S]*';
    else if (ch === '_') source += '[\\s\\S]';
    else source += escapeRegExp(ch);
  }
  return new RegExp(`^${source}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
