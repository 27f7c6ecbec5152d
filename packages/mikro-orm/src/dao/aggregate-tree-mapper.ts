/**
 * Maps a whole aggregate (its plain form, children included) to the rows of each of its tables,
 * and a selected row with nested child JSON back to the aggregate's plain form.
 */
import { VERSION_COLUMN } from '../schema/column-naming.js';
import type { AggregateTableModel, ChildTableModel, TableModel } from '../schema/table-model.js';
import { RowMapper, childKey, type PlainObject, type Row } from './row-mapper.js';

/** The rows to insert into one child table: each row's parameters, parent key and position. */
export interface ChildRows {
  table: ChildTableModel;
  rows: unknown[][];
}

export class AggregateTreeMapper {
  private readonly mappers = new Map<TableModel, RowMapper>();

  constructor(readonly model: AggregateTableModel) {
    const add = (table: TableModel): void => {
      this.mappers.set(table, new RowMapper(table));
      for (const child of table.children) add(child);
    };
    add(model);
  }

  /** The aggregate table's parameters, in column order. */
  rootParams(plain: PlainObject): unknown[] {
    return this.mapper(this.model).params(plain);
  }

  /** Rows of every child table, parents' tables before their children's (foreign-key order). */
  childRows(plain: PlainObject): ChildRows[] {
    const byTable = new Map<ChildTableModel, unknown[][]>();
    const walk = (table: TableModel, parentPlain: PlainObject): void => {
      const parentId = parentPlain[table.identity.path[0]!];
      for (const child of table.children) {
        const value = parentPlain[child.field];
        const items: PlainObject[] = child.many ? ((value as PlainObject[] | null) ?? []) : value ? [value as PlainObject] : [];
        if (items.length === 0) continue;
        let rows = byTable.get(child);
        if (!rows) {
          rows = [];
          byTable.set(child, rows);
        }
        const mapper = this.mapper(child);
        items.forEach((item, position) => {
          const row = mapper.params(item);
          row.push(parentId, position);
          rows.push(row);
        });
        for (const item of items) walk(child, item);
      }
    };
    walk(this.model, plain);
    return this.tablesInOrder().flatMap((table) => {
      const rows = byTable.get(table);
      return rows ? [{ table, rows }] : [];
    });
  }

  /** The plain form of a selected aggregate row, and its stored version. */
  fromRow(row: Row): { plain: PlainObject; version: number } {
    return { plain: this.decode(this.model, row), version: Number(row[VERSION_COLUMN]) };
  }

  private decode(table: TableModel, row: Row): PlainObject {
    const plain = this.mapper(table).plain(row);
    for (const child of table.children) {
      const raw = row[childKey(child.field)];
      if (child.many) plain[child.field] = ((raw as Row[] | null) ?? []).map((r) => this.decode(child, r));
      else plain[child.field] = raw ? this.decode(child, raw as Row) : null;
    }
    return plain;
  }

  private tablesInOrder(): ChildTableModel[] {
    const out: ChildTableModel[] = [];
    const walk = (table: TableModel): void => {
      for (const child of table.children) {
        out.push(child);
        walk(child);
      }
    };
    walk(this.model);
    return out;
  }

  private mapper(table: TableModel): RowMapper {
    return this.mappers.get(table)!;
  }
}
