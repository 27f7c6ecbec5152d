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
  /** Child tables depth-first, so every table comes after its parent (foreign-key order). */
  private readonly childTables: ChildTableModel[] = [];
  private readonly childIndex = new Map<ChildTableModel, number>();

  constructor(readonly model: AggregateTableModel) {
    const add = (table: TableModel): void => {
      this.mappers.set(table, new RowMapper(table));
      for (const child of table.children) {
        this.childIndex.set(child, this.childTables.length);
        this.childTables.push(child);
        add(child);
      }
    };
    add(model);
  }

  /** The aggregate table's parameters, in column order. */
  rootParams(plain: PlainObject): unknown[] {
    return this.mapper(this.model).params(plain);
  }

  /** Rows of every child table, parents' tables before their children's (foreign-key order). */
  childRows(plain: PlainObject): ChildRows[] {
    if (this.childTables.length === 0) return [];
    const rows = this.childTables.map(() => [] as unknown[][]);
    this.collect(this.model, plain, rows);
    const out: ChildRows[] = [];
    for (let i = 0; i < rows.length; i++) if (rows[i]!.length > 0) out.push({ table: this.childTables[i]!, rows: rows[i]! });
    return out;
  }

  private collect(table: TableModel, parentPlain: PlainObject, rows: unknown[][][]): void {
    const parentId = parentPlain[table.identity.path[0]!];
    for (const child of table.children) {
      const value = parentPlain[child.field];
      const items: PlainObject[] = child.many ? ((value as PlainObject[] | null) ?? []) : value ? [value as PlainObject] : [];
      if (items.length === 0) continue;
      const target = rows[this.childIndex.get(child)!]!;
      const mapper = this.mapper(child);
      for (let position = 0; position < items.length; position++) {
        const row = mapper.params(items[position]!);
        row.push(parentId, position);
        target.push(row);
      }
      if (child.children.length > 0) for (const item of items) this.collect(child, item, rows);
    }
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

  private mapper(table: TableModel): RowMapper {
    return this.mappers.get(table)!;
  }
}
