/**
 * Turns a table model into MikroORM `EntitySchema`s (one per table), so MikroORM's schema
 * generator owns the DDL: column types, nullability, unique constraints, foreign keys with
 * ON DELETE CASCADE from child tables to their parent. Domain classes are never decorated.
 */
import type * as MikroOrmCoreModule from '@mikro-orm/core';
import type { EntitySchema } from '@mikro-orm/core';
import type { EntityProperty } from '@mikro-orm/core';
import { POSITION_COLUMN, VERSION_COLUMN } from './column-naming.js';
import type { ChildTableModel, ColumnModel, TableModel } from './table-model.js';

type PropertyDef = Partial<EntityProperty> & Record<string, unknown>;

/** MikroORM's runtime type for a column type, so its schema diff sees no change on a re-run. */
function mikroTypeOf(column: ColumnModel): string {
  const sqlType = column.sqlType;
  if (sqlType === 'jsonb') return 'json';
  if (sqlType === 'bigint') return 'bigint';
  if (sqlType === 'double precision') return 'double';
  if (sqlType.startsWith('numeric')) return 'decimal';
  if (sqlType === 'boolean') return 'boolean';
  if (sqlType === 'date') return 'date';
  if (sqlType === 'timestamptz') return 'datetime';
  if (sqlType === 'text') return 'text';
  return 'string';
}

function columnProperty(column: ColumnModel): PropertyDef {
  return {
    type: mikroTypeOf(column),
    columnType: column.sqlType,
    fieldName: column.name,
    primary: column.primary || undefined,
    nullable: column.nullable,
    unique: column.unique || undefined,
  };
}

function tableSchema(orm: MikroOrmCore, table: TableModel, parent: TableModel | undefined, pgSchema: string): EntitySchema {
  const properties: Record<string, PropertyDef> = {};
  const indexes: { properties: string[] }[] = [];
  const uniques: { properties: string[] }[] = [];
  for (const column of table.columns) properties[column.name] = columnProperty(column);
  if (parent) {
    const child = table as ChildTableModel;
    properties[child.parentKey] = {
      kind: orm.ReferenceKind.MANY_TO_ONE,
      entity: () => parent.name,
      fieldName: child.parentKey,
      nullable: false,
      deleteRule: 'cascade',
      updateRule: 'cascade',
    };
    properties[POSITION_COLUMN] = { type: 'integer', columnType: 'integer', fieldName: POSITION_COLUMN, nullable: false };
    // Children are always read by parent key; a hasOne parent owns at most one row.
    (child.many ? indexes : uniques).push({ properties: [child.parentKey] });
  } else {
    properties[VERSION_COLUMN] = { type: 'integer', columnType: 'integer', fieldName: VERSION_COLUMN, nullable: false, default: 0 };
  }
  return new orm.EntitySchema({ name: table.name, tableName: table.tableName, schema: pgSchema, properties, indexes, uniques } as ConstructorParameters<
    typeof EntitySchema
  >[0]);
}

type MikroOrmCore = typeof MikroOrmCoreModule;

/**
 * One EntitySchema per table of the aggregate, parents first. MikroORM is imported here, when a
 * schema is set up, not when the package loads: most commands that load a PostgreSQL project
 * (config check, info, dlq, status) never need it (about 0.6 s of CPU per process).
 */
export async function buildEntitySchemas(model: TableModel, pgSchema: string): Promise<EntitySchema[]> {
  const orm = await import('@mikro-orm/core');
  const out: EntitySchema[] = [];
  const walk = (table: TableModel, parent: TableModel | undefined): void => {
    out.push(tableSchema(orm, table, parent, pgSchema));
    for (const child of table.children) walk(child, table);
  };
  walk(model, undefined);
  return out;
}
