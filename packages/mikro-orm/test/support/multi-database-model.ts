/** Two aggregates on two named databases (`default` and `reporting`), for units of work spanning both. */
import { BaseAggregate, BaseEntity, Domain, field } from '@protean-ts/core';

export const multi = new Domain('Multi');

@multi.aggregate()
export class Sale extends BaseAggregate {
  @field.string({ required: true }) customer!: string;
  @field.integer() amount?: number;
  @field.hasMany(() => SaleLine) lines?: SaleLine[];
}

@multi.entity({ partOf: Sale })
export class SaleLine extends BaseEntity {
  @field.string({ required: true }) sku!: string;
}

@multi.aggregate({ provider: 'reporting' })
export class DailyReport extends BaseAggregate {
  @field.string({ required: true }) day!: string;
  @field.integer() sales?: number;
}
