/** The SQL a repository query becomes (no database needed; the integration tests run it for real). */
import { describe, expect, it } from 'vitest';
import { fieldsOf, InvalidQueryError } from '@protean-ts/core';
import { FilterCompiler } from '../src/dao/filter-compiler.js';
import { buildTableModel } from '../src/schema/table-model-builder.js';
import { Order, shop } from './support/shop-model.js';

const schema = shop.aggregateSchemaFor(Order);
const model = buildTableModel(schema, fieldsOf);
const compiler = new FilterCompiler('Order', model, schema.fields);

describe('filter compiler', () => {
  it('binds every operand and keeps NULL semantics explicit', () => {
    expect(compiler.where({ status: 'PLACED', total: { $gte: 10, $lt: 20 }, code: null })).toEqual({
      sql: ' WHERE t0."status" = ? AND t0."total" >= ? AND t0."total" < ? AND t0."code" IS NULL',
      params: ['PLACED', 10, 20],
    });
    expect(compiler.where({ quantity: { $nin: [1, null, 2] } })).toEqual({
      sql: ' WHERE (t0."quantity" IS NOT NULL AND NOT (t0."quantity" = ANY(?)))',
      params: [[1, 2]],
    });
  });

  it('normalises dates and compares jsonb as jsonb', () => {
    expect(compiler.where({ placedAt: { $gt: new Date('2024-01-01T00:00:00Z') }, dueOn: new Date('2024-02-29T00:00:00Z') }).params).toEqual([
      '2024-01-01T00:00:00.000Z',
      '2024-02-29',
    ]);
    expect(compiler.where({ extra: { $ne: { a: 1 } } })).toEqual({ sql: ' WHERE t0."extra" <> ?::jsonb', params: ['{"a":1}'] });
  });

  it('orders with the identity as the last key and pages with bound limits', () => {
    expect(compiler.orderAndPage({ orderBy: { customer: 'desc' }, limit: 10, offset: 20 }, model.identity)).toEqual({
      sql: ' ORDER BY t0."customer" DESC, t0."id" ASC LIMIT ? OFFSET ?',
      params: [10, 20],
    });
  });

  it('refuses unknown fields and operators with InvalidQueryError', () => {
    expect(() => compiler.where({ colour: 'red' })).toThrow(InvalidQueryError);
    expect(() => compiler.where({ total: { $between: [1, 2] } })).toThrow(/unknown operator "\$between" on "total"/);
  });
});
