/**
 * The SQL text of one aggregate, generated once from its table model: insert, compare-and-set
 * update, delete, the child-table writes, and one SELECT that returns the aggregate with all its
 * children (nested `json_agg` subqueries), so loading any number of aggregates is one round trip.
 */
import { POSITION_COLUMN, VERSION_COLUMN, qualifiedName, quoteIdent as q } from '../schema/column-naming.js';
import type { AggregateTableModel, ChildTableModel, TableModel } from '../schema/table-model.js';
import { childKey } from './row-mapper.js';

/** PostgreSQL accepts at most 65535 bound parameters per statement. */
const MAX_PARAMS = 65_535;

function placeholders(count: number): string {
  return `(${new Array<string>(count).fill('?').join(', ')})`;
}

export class AggregateSql {
  readonly table: string;
  readonly insert: string;
  readonly update: string;
  readonly versionOf: string;
  readonly deleteById: string;
  /** `SELECT <aggregate with children> FROM <table> t0` (append WHERE/ORDER/LIMIT). */
  readonly select: string;
  readonly selectById: string;
  readonly countFrom: string;
  /** The non-primary columns the update sets, in `update`'s order (identity goes in the WHERE). */
  readonly updateColumnIndexes: readonly number[];
  private readonly childInserts = new Map<ChildTableModel, Map<number, string>>();

  constructor(
    model: AggregateTableModel,
    private readonly pgSchema: string,
  ) {
    const m = model;
    this.table = qualifiedName(pgSchema, m.tableName);
    const names = m.columns.map((c) => q(c.name));
    const id = q(m.identity.name);
    this.insert = `INSERT INTO ${this.table} (${[...names, q(VERSION_COLUMN)].join(', ')}) VALUES ${placeholders(names.length + 1)} ON CONFLICT (${id}) DO NOTHING`;
    const sets = m.columns.filter((c) => !c.primary).map((c) => `${q(c.name)} = ?`);
    this.update = `UPDATE ${this.table} SET ${[...sets, `${q(VERSION_COLUMN)} = ?`].join(', ')} WHERE ${id} = ? AND ${q(VERSION_COLUMN)} = ?`;
    this.versionOf = `SELECT ${q(VERSION_COLUMN)} AS v FROM ${this.table} WHERE ${id} = ?`;
    this.deleteById = `DELETE FROM ${this.table} WHERE ${id} = ?`;
    const selected = [
      ...this.columnsOf(m, 't0'),
      `t0.${q(VERSION_COLUMN)}`,
      ...m.children.map((c) => `${this.childSubquery(c, m, 't0', 1)} AS ${q(childKey(c.field))}`),
    ];
    this.select = `SELECT ${selected.join(', ')} FROM ${this.table} t0`;
    this.selectById = `${this.select} WHERE t0.${id} = ?`;
    this.countFrom = `SELECT count(*)::int AS n FROM ${this.table} t0`;
    this.updateColumnIndexes = m.columns.flatMap((c, i) => (c.primary ? [] : [i]));
  }

  /** `DELETE FROM <child> WHERE <parent key> = ?` (grandchildren go by ON DELETE CASCADE). */
  childDelete(child: ChildTableModel): string {
    return `DELETE FROM ${qualifiedName(this.pgSchema, child.tableName)} WHERE ${q(child.parentKey)} = ?`;
  }

  /** Rows per INSERT so one statement stays under PostgreSQL's parameter limit. */
  childBatchSize(child: ChildTableModel): number {
    return Math.floor(MAX_PARAMS / (child.columns.length + 2));
  }

  /** A multi-row INSERT for `rows` rows of one child table: its columns, parent key, position. */
  childInsert(child: ChildTableModel, rows: number): string {
    let byCount = this.childInserts.get(child);
    if (!byCount) {
      byCount = new Map();
      this.childInserts.set(child, byCount);
    }
    let sql = byCount.get(rows);
    if (!sql) {
      const names = [...child.columns.map((c) => q(c.name)), q(child.parentKey), q(POSITION_COLUMN)];
      const tuple = placeholders(names.length);
      sql = `INSERT INTO ${qualifiedName(this.pgSchema, child.tableName)} (${names.join(', ')}) VALUES ${new Array<string>(rows).fill(tuple).join(', ')}`;
      byCount.set(rows, sql);
    }
    return sql;
  }

  private columnsOf(table: TableModel, alias: string): string[] {
    return table.columns.map((c) => `${alias}.${q(c.name)}`);
  }

  /** A scalar subquery giving one child row (hasOne) or a JSON array of them (hasMany), nested. */
  private childSubquery(child: ChildTableModel, parent: TableModel, parentAlias: string, depth: number): string {
    const alias = `t${depth}`;
    const rows = `x${depth}`;
    const selected = [
      ...this.columnsOf(child, alias),
      `${alias}.${q(POSITION_COLUMN)}`,
      ...child.children.map((g) => `${this.childSubquery(g, child, alias, depth + 1)} AS ${q(childKey(g.field))}`),
    ];
    const inner = `SELECT ${selected.join(', ')} FROM ${qualifiedName(this.pgSchema, child.tableName)} ${alias} WHERE ${alias}.${q(child.parentKey)} = ${parentAlias}.${q(parent.identity.name)}`;
    if (child.many) {
      return `(SELECT coalesce(json_agg(${rows} ORDER BY ${rows}.${q(POSITION_COLUMN)}), '[]'::json) FROM (${inner}) ${rows})`;
    }
    return `(SELECT row_to_json(${rows}) FROM (${inner} LIMIT 1) ${rows})`;
  }
}
