/**
 * The aggregate the exact-values tests store (a field of every numeric kind, text, dates, lists,
 * a dict and child entities), and a PostgreSQL store for it registered in a describe's hooks.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { BaseAggregate, BaseEntity, Domain, field, type AggregateDao } from '@protean-ts/core';
import { ProviderFixture } from './postgres-provider-fixture.js';

export const exact = new Domain('Exact');

@exact.aggregate()
export class Measure extends BaseAggregate {
  @field.integer() count?: number;
  @field.float() ratio?: number;
  @field.decimal({ precision: 12, scale: 2 }) amount?: number;
  @field.decimal() free?: number;
  @field.decimal({ precision: 5 }) whole?: number;
  @field.text() note?: string;
  @field.date() day?: Date;
  @field.datetime() at?: Date;
  @field.list({ of: 'float' }) ratios?: number[];
  @field.dict() extra?: Record<string, unknown>;
  @field.hasMany(() => Reading) readings?: Reading[];
}

@exact.entity({ partOf: Measure })
export class Reading extends BaseEntity {
  @field.integer() count?: number;
  @field.float() ratio?: number;
  @field.decimal({ scale: 3 }) amount?: number;
}

/** JSON with object keys sorted: jsonb keeps its own key order, which is not part of the value. */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const canonical = (m: Measure) => sortedJson(m.toPlain());

/** In a describe: a provider on a temp database (beforeAll), the Measure table emptied before each test. */
export function measureStore() {
  const fixture = new ProviderFixture();
  const schema = exact.aggregateSchemaFor(Measure);
  let dao: AggregateDao<Measure>;
  beforeAll(() => fixture.start());
  afterAll(() => fixture.stop());
  beforeEach(async () => {
    dao = (await fixture.fresh([schema])).dao(schema);
  });
  return {
    fixture,
    dao: () => dao,
    /** Saves a new measure and loads it back. */
    roundTrip: async (measure: Measure): Promise<Measure> => {
      await dao.save(measure, -1);
      return (await dao.get(measure.id))!;
    },
  };
}
