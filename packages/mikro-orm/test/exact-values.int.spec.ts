/**
 * Issue 10, point 2 on PostgreSQL: every value a field accepts is stored and read back exactly
 * (bigint for integers, double precision for floats, numeric for decimals, jsonb for dicts and
 * lists, on the aggregate's row and on child rows read through json_agg), and a value another
 * program wrote that a field cannot hold is refused by name when loading, never rounded. The
 * round trip of generated values is exact-values.properties.ts, run here at the fast tier's size.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@protean-ts/core';
import { servicesUp, POSTGRES } from '@protean-ts/conformance';
import { describeExactValueProperties } from './exact-values.properties.js';
import { canonical, Measure, measureStore, sortedJson } from './support/exact-measure.js';
import { queryDatabase } from './support/temp-database.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL stores exactly what a field validated', () => {
  const { fixture, dao, roundTrip } = measureStore();

  it('keeps the extremes of every numeric kind, on the row and on child rows', async () => {
    const edges = [
      { count: Number.MAX_SAFE_INTEGER, ratio: Number.MAX_VALUE, amount: 9999999999.99, free: 5e-324, whole: 99999 },
      { count: Number.MIN_SAFE_INTEGER, ratio: Number.MIN_VALUE, amount: -9999999999.99, free: 1e21, whole: -99999 },
      { count: 0, ratio: 0.1 + 0.2, amount: 0.01, free: 123456789.12345679, whole: 0 },
      { count: -0, ratio: -1e-300, amount: '1.005', free: '-0.000000000000000000000000001', whole: 1.5 },
    ];
    for (const edge of edges) {
      const readings = [{ count: edge.count, ratio: edge.ratio, amount: 1.0005 }];
      const measure = Measure.create({ ...edge, ratios: [edge.ratio, -0, 1e-7], readings } as never);
      const loaded = await roundTrip(measure);
      expect(canonical(loaded)).toBe(canonical(measure));
      expect(Object.is(loaded.ratio, measure.ratio)).toBe(true);
      expect(loaded.readings![0]!.amount).toBe(1.001);
    }
  });

  it('keeps dicts with hostile keys, unicode and float extremes through jsonb', async () => {
    const extra = JSON.parse('{"__proto__": {"constructor": [1, 2.5e-308, 1.7976931348623157e308]}, "toString": "😀 ✓ \\"q\\"", "": null}');
    const loaded = await roundTrip(Measure.create({ extra, note: 'tab\there ünïcödé 😀' }));
    expect(sortedJson(loaded.extra)).toBe(sortedJson(extra));
    expect(Object.hasOwn(loaded.extra!, '__proto__')).toBe(true);
    expect(loaded.note).toBe('tab\there ünïcödé 😀');
  });

  it('refuses, naming the field, a stored value the field cannot hold exactly (written by another program)', async () => {
    const measure = Measure.create({ count: 1, free: 1 });
    await dao().save(measure, -1);
    await queryDatabase(fixture.db.uri, `UPDATE "measure" SET "count" = 9007199254740993, "free" = 0.12345678901234567890123 WHERE id = $1`, [measure.id]);
    const error = await dao()
      .get(measure.id)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.count![0]).toMatch(/must be a safe integer/);
    expect((error as ValidationError).errors.free![0]).toMatch(/cannot be held exactly/);
  });
});

describeExactValueProperties('fast');
