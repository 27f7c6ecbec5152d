/**
 * The aggregate the persistence benchmark commits: an order with one line, the smallest shape
 * that still exercises a child table (two inserts per commit, as in the raw baseline).
 */
import { BaseAggregate, BaseEntity, Domain, field } from '@protean-ts/core';

// root: the benchmark's own domain.toml sits next to this file.
export const benchDomain = new Domain('Bench', { root: import.meta.url });

@benchDomain.aggregate()
export class BenchOrder extends BaseAggregate {
  @field.string({ required: true, maxLength: 50 }) customer!: string;
  @field.decimal({ min: 0 }) total?: number;
  @field.hasMany(() => BenchLine) lines?: BenchLine[];
}

@benchDomain.entity({ partOf: BenchOrder })
export class BenchLine extends BaseEntity {
  @field.string({ required: true }) sku!: string;
  @field.integer({ min: 1 }) quantity!: number;
}
