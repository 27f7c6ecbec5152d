/**
 * One statement that inserts a new aggregate with all its child rows: the aggregate row in a
 * data-modifying CTE (`ON CONFLICT DO NOTHING RETURNING 1`), each child table's rows in another
 * that only fires when the aggregate row went in. One round trip instead of one per table; the
 * foreign keys are checked at the end of the statement, when the parent rows exist.
 */
import { POSITION_COLUMN, VERSION_COLUMN, qualifiedName, quoteIdent as q } from '../schema/column-naming.js';
import type { AggregateTableModel, ChildTableModel, TableModel } from '../schema/table-model.js';
import type { ChildRows } from './aggregate-tree-mapper.js';

export class AggregateInsertSql {
  private readonly cache = new Map<string, string>();
  private readonly head: string;
  /** The column type of each table's identity, to type its children's parent key. */
  private readonly identityTypes = new Map<TableModel, string>();

  constructor(
    model: AggregateTableModel,
    private readonly pgSchema: string,
  ) {
    const names = [...model.columns.map((c) => q(c.name)), q(VERSION_COLUMN)];
    const values = new Array<string>(names.length).fill('?').join(', ');
    this.head = `WITH p AS (INSERT INTO ${qualifiedName(pgSchema, model.tableName)} (${names.join(', ')}) VALUES (${values}) ON CONFLICT (${q(model.identity.name)}) DO NOTHING RETURNING 1)`;
    const walk = (table: TableModel): void => {
      this.identityTypes.set(table, table.identity.sqlType);
      table.children.forEach(walk);
    };
    walk(model);
  }

  /** The statement for these child rows; its single row says how many aggregates went in (`n`: 0 or 1). */
  sql(children: readonly ChildRows[]): string {
    const key = children.map((c) => `${c.table.tableName}:${c.rows.length}`).join(',');
    let sql = this.cache.get(key);
    if (!sql) {
      const ctes = children.map((c, i) => `c${i} AS (${this.childInsert(c.table, c.rows.length)})`);
      sql = `${[this.head, ...ctes].join(',\n')}\nSELECT count(*)::int AS n FROM p`;
      this.cache.set(key, sql);
    }
    return sql;
  }

  // VALUES rows have no column types of their own, so every placeholder carries its column's type.
  private childInsert(child: ChildTableModel, rows: number): string {
    const names = [...child.columns.map((c) => q(c.name)), q(child.parentKey), q(POSITION_COLUMN)];
    const parentType = this.parentType(child);
    const tuple = `(${[...child.columns.map((c) => `?::${c.sqlType}`), `?::${parentType}`, '?::integer'].join(', ')})`;
    const values = new Array<string>(rows).fill(tuple).join(', ');
    return `INSERT INTO ${qualifiedName(this.pgSchema, child.tableName)} (${names.join(', ')}) SELECT * FROM (VALUES ${values}) v WHERE EXISTS (SELECT 1 FROM p)`;
  }

  private parentType(child: ChildTableModel): string {
    for (const [table, type] of this.identityTypes) if (table.children.includes(child)) return type;
    throw new Error(`no parent table found for ${child.tableName}`);
  }
}
