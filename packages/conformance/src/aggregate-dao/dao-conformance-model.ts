/**
 * The model the DAO conformance suite stores: one aggregate using every persisted field kind
 * (scalars, dates, status, list, dict, value object, hasOne and hasMany children), registered
 * in a Domain of its own so it never mixes with the model under test.
 */
import { Domain, BaseAggregate, BaseEntity, BaseValueObject, field, type AggregateSchema } from '@protean-ts/core';

export const conformanceDomain = new Domain('Conformance');

@conformanceDomain.valueObject()
export class ConformanceDimensions extends BaseValueObject {
  @field.float({ required: true }) width!: number;
  @field.float({ required: true }) height!: number;
}

@conformanceDomain.aggregate({ schemaName: 'conformance_item' })
export class ConformanceItem extends BaseAggregate {
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
  @field.valueObject(() => ConformanceDimensions) size?: ConformanceDimensions;
  @field.hasMany(() => ConformancePart) parts?: ConformancePart[];
  @field.hasOne(() => ConformanceLabel) label?: ConformanceLabel;
}

@conformanceDomain.entity({ partOf: ConformanceItem, schemaName: 'conformance_part' })
export class ConformancePart extends BaseEntity {
  @field.string({ required: true }) code!: string;
  @field.integer() count?: number;
}

@conformanceDomain.entity({ partOf: ConformanceItem, schemaName: 'conformance_label' })
export class ConformanceLabel extends BaseEntity {
  @field.string({ required: true }) text!: string;
}

export interface ConformanceModel {
  domain: Domain;
  Item: typeof ConformanceItem;
  Part: typeof ConformancePart;
  Label: typeof ConformanceLabel;
  Dimensions: typeof ConformanceDimensions;
  schema: AggregateSchema<ConformanceItem>;
}

export function conformanceModel(): ConformanceModel {
  return {
    domain: conformanceDomain,
    Item: ConformanceItem,
    Part: ConformancePart,
    Label: ConformanceLabel,
    Dimensions: ConformanceDimensions,
    schema: conformanceDomain.aggregateSchemaFor(ConformanceItem),
  };
}
