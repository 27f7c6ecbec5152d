/**
 * The model the DAO conformance suite stores: one aggregate using every persisted field kind
 * (scalars, dates, status, list, dict, value object, hasOne and hasMany children), registered
 * in a Domain of its own so it never mixes with the model under test.
 */
import { Domain } from '../domain/domain.js';
import { BaseAggregate } from '../elements/base-aggregate.js';
import { BaseEntity } from '../elements/base-entity.js';
import { BaseValueObject } from '../elements/base-value-object.js';
import { field } from '../fields/field-decorators.js';

export function conformanceModel() {
  const domain = new Domain('Conformance');

  @domain.valueObject()
  class Dimensions extends BaseValueObject {
    @field.float({ required: true }) width!: number;
    @field.float({ required: true }) height!: number;
  }

  @domain.aggregate({ schemaName: 'conformance_item' })
  class Item extends BaseAggregate {
    @field.string({ required: true, maxLength: 100 }) name!: string;
    @field.string({ unique: true }) sku?: string;
    @field.integer() quantity?: number;
    @field.float() price?: number;
    @field.decimal({ precision: 10, scale: 2 }) total?: number;
    @field.boolean() active?: boolean;
    @field.datetime() seenAt?: Date;
    @field.date() releasedOn?: Date;
    @field.status({ values: ['DRAFT', 'LIVE', 'RETIRED'] }) state?: 'DRAFT' | 'LIVE' | 'RETIRED';
    @field.text() notes?: string;
    @field.list({ of: 'string' }) tags?: string[];
    @field.dict() attributes?: Record<string, unknown>;
    @field.valueObject(() => Dimensions) size?: Dimensions;
    @field.hasMany(() => Part) parts?: Part[];
    @field.hasOne(() => Label) label?: Label;
  }

  @domain.entity({ partOf: Item, schemaName: 'conformance_part' })
  class Part extends BaseEntity {
    @field.string({ required: true }) code!: string;
    @field.integer() count?: number;
  }

  @domain.entity({ partOf: Item, schemaName: 'conformance_label' })
  class Label extends BaseEntity {
    @field.string({ required: true }) text!: string;
  }

  const schema = domain.aggregateSchemaFor(Item);
  return { domain, Item, Part, Label, Dimensions, schema };
}
