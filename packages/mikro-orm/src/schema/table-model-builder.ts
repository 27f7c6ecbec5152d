/**
 * Builds the `AggregateTableModel` of an aggregate from its `AggregateSchema`: flattens value
 * objects into prefixed columns, turns hasOne/hasMany into child tables with a foreign key and a
 * position, and rejects models two tables or two columns would collide in, naming both sides.
 */
import type { AggregateSchema, ClassRef, EntitySchema, FieldDefinition } from '@protean-ts/core';
import { MappingError } from '../mapping.error.js';
import { codecFor } from './column-codec.js';
import { columnTypeOf } from './column-types.js';
import { POSITION_COLUMN, VERSION_COLUMN, snakeCase } from './column-naming.js';
import type { AggregateTableModel, ChildTableModel, ColumnModel, EmbeddedModel, TableModel } from './table-model.js';

/** The fields of a value-object class, from the registry. */
export type ValueObjectFields = (valueObject: ClassRef) => readonly FieldDefinition[];

const RESERVED = new Set([VERSION_COLUMN, POSITION_COLUMN]);

interface TableSource {
  name: string;
  tableName: string;
  element: ClassRef;
  identityField: string;
  fields: readonly FieldDefinition[];
}

class Builder {
  private readonly tableOwners = new Map<string, string>();
  private readonly entityOwners = new Map<ClassRef, string>();

  constructor(
    private readonly schema: AggregateSchema,
    private readonly voFields: ValueObjectFields,
  ) {}

  build(): AggregateTableModel {
    const s = this.schema;
    const source: TableSource = { name: s.name, tableName: s.tableName, element: s.aggregate, identityField: s.identityField, fields: s.fields };
    return { ...this.table(source, undefined), schema: s };
  }

  private table(source: TableSource, parentKey: string | undefined): TableModel {
    this.claimTable(source.tableName, source.name);
    const columns: ColumnModel[] = [];
    const embedded: EmbeddedModel[] = [];
    const children: ChildTableModel[] = [];
    for (const field of source.fields) {
      if (field.kind === 'hasOne' || field.kind === 'hasMany') {
        children.push(this.child(field, source));
      } else if (field.kind === 'valueObject') {
        this.embed(field, [], true, source.name, columns, embedded);
      } else {
        columns.push(this.column(field, [], true, source, source.name));
      }
    }
    const identity = columns.find((c) => c.path.length === 1 && c.path[0] === source.identityField);
    if (!identity) {
      throw new MappingError(
        `${source.name} has no field named '${source.identityField}' to use as its identity; declare it or mark another field with identifier: true.`,
      );
    }
    const model: TableModel = { name: source.name, tableName: source.tableName, element: source.element, identity, columns, embedded, children };
    this.checkColumnNames(model, parentKey);
    return model;
  }

  private column(field: FieldDefinition, prefix: readonly string[], parentsRequired: boolean, source: TableSource | undefined, owner: string): ColumnModel {
    const path = [...prefix, field.name];
    const primary = source !== undefined && prefix.length === 0 && field.name === source.identityField;
    return {
      name: path.map(snakeCase).join('_'),
      path,
      field,
      sqlType: columnTypeOf(field, owner),
      nullable: !primary && !(parentsRequired && field.required),
      primary,
      unique: field.unique && !primary,
      codec: codecFor(field),
    };
  }

  /** A value object becomes `<field>_<subfield>` columns; nested value objects recurse. */
  private embed(
    field: FieldDefinition,
    prefix: readonly string[],
    parentsRequired: boolean,
    owner: string,
    columns: ColumnModel[],
    embedded: EmbeddedModel[],
  ): void {
    const target = this.target(field, owner);
    const path = [...prefix, field.name];
    const own: ColumnModel[] = [];
    const required = parentsRequired && field.required;
    for (const sub of this.voFields(target)) {
      if (sub.kind === 'hasOne' || sub.kind === 'hasMany') {
        throw new MappingError(
          `${owner}.${path.join('.')}.${sub.name}: a value object cannot hold entities; make ${target.name} an entity or store an identifier instead.`,
        );
      }
      if (sub.kind === 'valueObject') {
        const before = columns.length;
        this.embed(sub, path, required, `${owner}.${field.name}`, columns, embedded);
        own.push(...columns.slice(before));
      } else {
        const col = this.column(sub, path, required, undefined, `${owner}.${path.join('.')}`);
        columns.push(col);
        own.push(col);
      }
    }
    embedded.push({ path, columns: own });
  }

  private child(field: FieldDefinition, parent: TableSource): ChildTableModel {
    const target = this.target(field, parent.name);
    const previous = this.entityOwners.get(target);
    const here = `${parent.name}.${field.name}`;
    if (previous) {
      throw new MappingError(
        `Entity ${target.name} is reachable through both ${previous} and ${here}; each hasOne/hasMany field needs its own entity class, since each gets its own table.`,
      );
    }
    this.entityOwners.set(target, here);
    const entity = this.schema.entities.find((e: EntitySchema) => e.entity === target);
    if (!entity) {
      throw new MappingError(
        `${here} holds ${target.name}, which is not in ${this.schema.name}'s schema; register it with @domain.entity({ partOf: ${this.schema.name} }).`,
      );
    }
    const source: TableSource = {
      name: entity.name,
      tableName: entity.tableName,
      element: entity.entity,
      identityField: entity.identityField,
      fields: entity.fields,
    };
    const parentKey = this.parentKeyFor(source, parent.tableName);
    return { ...this.table(source, parentKey), field: field.name, many: field.kind === 'hasMany', parentKey };
  }

  /** `<parent table>_id`, unless the entity has a column by that name already. */
  private parentKeyFor(source: TableSource, parentTable: string): string {
    const preferred = `${parentTable}_id`;
    const taken = source.fields.some((f) => snakeCase(f.name) === preferred || snakeCase(f.name).startsWith(`${preferred}_`));
    return taken ? `_${preferred}` : preferred;
  }

  private target(field: FieldDefinition, owner: string): ClassRef {
    const target = field.target?.();
    if (!target) {
      throw new MappingError(`${owner}.${field.name} is a ${field.kind} field without a target class; pass one, e.g. field.${field.kind}(() => Target).`);
    }
    return target;
  }

  private claimTable(table: string, owner: string): void {
    const previous = this.tableOwners.get(table);
    if (previous) {
      throw new MappingError(`${owner} and ${previous} both map to table '${table}'; give one a different schemaName.`);
    }
    this.tableOwners.set(table, owner);
  }

  private checkColumnNames(model: TableModel, parentKey: string | undefined): void {
    const seen = new Map<string, string>();
    for (const col of model.columns) {
      const label = `${model.name}.${col.path.join('.')}`;
      if (RESERVED.has(col.name)) {
        throw new MappingError(`${label} maps to column '${col.name}', which the framework reserves; rename the field.`);
      }
      const other = seen.get(col.name);
      if (other) throw new MappingError(`${label} and ${other} both map to column '${col.name}' of table '${model.tableName}'; rename one of them.`);
      seen.set(col.name, label);
    }
    if (parentKey && seen.has(parentKey)) {
      throw new MappingError(`${seen.get(parentKey)} maps to column '${parentKey}', the foreign key of table '${model.tableName}'; rename the field.`);
    }
  }
}

/** The table model of one aggregate; throws `MappingError` when the model cannot be stored. */
export function buildTableModel(schema: AggregateSchema, voFields: ValueObjectFields): AggregateTableModel {
  return new Builder(schema, voFields).build();
}
