import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEntity, Domain, field, ValidationError } from '../../src/index.js';

const domain = new Domain('BlankIds');

@domain.aggregate()
class Basket extends BaseAggregate {
  @field.string() owner?: string;
  @field.hasMany(() => Item) items?: Item[];
}

@domain.entity({ partOf: Basket })
class Item extends BaseEntity {
  @field.string() sku?: string;
}

describe('an empty identity given to create', () => {
  it('is refused on an aggregate, like a blank one, instead of being replaced by a generated id', () => {
    expect(() => Basket.create({ id: '' })).toThrow(ValidationError);
    expect(() => Basket.create({ id: '' })).toThrow(/id.*non-empty/);
    expect(() => Basket.create({ id: '   ' })).toThrow(ValidationError);
  });

  it('is refused on an entity', () => {
    expect(() => Item.create({ id: '', sku: 'a' })).toThrow(/id.*non-empty/);
  });

  it('leaving the identity out still generates one', () => {
    expect(Basket.create({}).id).toMatch(/\S/);
  });
});
