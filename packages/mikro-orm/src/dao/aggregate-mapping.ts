/**
 * Everything a PostgreSQL DAO needs for one aggregate type, built once per provider and reused
 * by every DAO and transaction: the table model, its SQL, the row mapper, the filter compiler,
 * and the lookup that turns a unique-constraint violation back into the field it guards.
 */
import type { AggregateSchema } from '@protean-ts/core';
import type { AggregateTableModel, ColumnModel, TableModel } from '../schema/table-model.js';
import { tablesOf } from '../schema/table-model.js';
import { AggregateInsertSql } from './aggregate-insert-sql.js';
import { AggregateSql } from './aggregate-sql.js';
import { AggregateTreeMapper } from './aggregate-tree-mapper.js';
import { FilterCompiler } from './filter-compiler.js';

export interface ColumnOwner {
  element: string;
  column: ColumnModel;
}

export class AggregateMapping<T = object> {
  readonly sql: AggregateSql;
  readonly inserts: AggregateInsertSql;
  readonly tree: AggregateTreeMapper;
  readonly filters: FilterCompiler;
  private readonly columnsByTable = new Map<string, { table: TableModel; columns: Map<string, ColumnModel> }>();

  constructor(
    readonly schema: AggregateSchema<T>,
    readonly model: AggregateTableModel,
    pgSchema: string,
  ) {
    this.sql = new AggregateSql(model, pgSchema);
    this.inserts = new AggregateInsertSql(model, pgSchema);
    this.tree = new AggregateTreeMapper(model);
    this.filters = new FilterCompiler(schema.name, model, schema.fields);
    for (const table of tablesOf(model)) {
      this.columnsByTable.set(table.tableName, { table, columns: new Map(table.columns.map((c) => [c.name, c])) });
    }
  }

  /** The element and column a PostgreSQL error names (`table`, and the column in `Key (col)=…`). */
  columnOwner(table: string | undefined, detail: string | undefined): ColumnOwner | undefined {
    const entry = table ? this.columnsByTable.get(table) : undefined;
    const column = /^Key \(([^)]+)\)=/.exec(detail ?? '')?.[1];
    const model = column ? entry?.columns.get(column) : undefined;
    return entry && model ? { element: entry.table.name, column: model } : undefined;
  }
}
