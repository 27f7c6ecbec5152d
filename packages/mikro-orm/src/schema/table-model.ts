/**
 * The relational shape of one aggregate: its table, the columns each field maps to (value objects
 * flattened into prefixed columns) and one child table per hasOne/hasMany entity, recursively.
 * Built once per aggregate; the DDL, the SQL statements and the row mapping all read it.
 */
import type { AggregateSchema, ClassRef, FieldDefinition } from '@protean-ts/core';
import type { ColumnCodec } from './column-codec.js';

export interface ColumnModel {
  /** snake_case column name, e.g. `shipping_address_street`. */
  readonly name: string;
  /** Property path in the element's plain form: `['shippingAddress', 'street']`. */
  readonly path: readonly string[];
  /** The leaf field this column stores. */
  readonly field: FieldDefinition;
  /** PostgreSQL type, e.g. `varchar(255)`. */
  readonly sqlType: string;
  readonly nullable: boolean;
  readonly primary: boolean;
  readonly unique: boolean;
  readonly codec: ColumnCodec;
}

/** A value-object field: which columns hold it, so an all-null group reads back as absent. */
export interface EmbeddedModel {
  readonly path: readonly string[];
  readonly columns: readonly ColumnModel[];
}

export interface TableModel {
  /** Element name (`Order`, `OrderLine`), also the MikroORM entity name. */
  readonly name: string;
  readonly tableName: string;
  readonly element: ClassRef;
  readonly identity: ColumnModel;
  /** Every data column, identity included, in declaration order. */
  readonly columns: readonly ColumnModel[];
  readonly embedded: readonly EmbeddedModel[];
  readonly children: readonly ChildTableModel[];
}

export interface ChildTableModel extends TableModel {
  /** The parent's property holding this entity (or list of them). */
  readonly field: string;
  readonly many: boolean;
  /** Foreign key column pointing at the parent's identity, e.g. `order_id`. */
  readonly parentKey: string;
}

export interface AggregateTableModel extends TableModel {
  readonly schema: AggregateSchema;
}

/** Every table of an aggregate, parents before children (creation and insert order). */
export function tablesOf(model: TableModel): TableModel[] {
  const out: TableModel[] = [model];
  for (const child of model.children) out.push(...tablesOf(child));
  return out;
}
