/** How an AggregateSchema becomes tables and columns, and the models it refuses (no database needed). */
import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEntity, BaseValueObject, Domain, field, fieldsOf } from '@protean-ts/core';
import { MappingError } from '../src/index.js';
import { buildTableModel } from '../src/schema/table-model-builder.js';
import { Order, shop } from './support/shop-model.js';

describe('table model', () => {
  const model = buildTableModel(shop.aggregateSchemaFor(Order), fieldsOf);

  it('maps fields to snake_case columns and flattens nested value objects', () => {
    expect(model.tableName).toBe('order');
    expect(model.identity.name).toBe('id');
    const names = model.columns.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['placed_at', 'customer_id', 'shipping_address_street', 'shipping_address_location_lat']));
    expect(names).not.toContain('lines');
    expect(model.embedded.map((e) => e.path.join('.'))).toEqual(['shippingAddress.location', 'shippingAddress']);
  });

  it('keeps required fields of an optional value object nullable', () => {
    const street = model.columns.find((c) => c.name === 'shipping_address_street')!;
    expect(street.field.required).toBe(true);
    expect(street.nullable).toBe(true);
    expect(model.columns.find((c) => c.name === 'customer')!.nullable).toBe(false);
  });

  it('makes child tables with a parent key, nested ones included', () => {
    expect(model.children.map((c) => [c.tableName, c.parentKey, c.many])).toEqual([
      ['order_line', 'order_id', true],
      ['shipment', 'order_id', false],
    ]);
    expect(model.children[0]!.children.map((c) => [c.tableName, c.parentKey])).toEqual([['line_note', 'order_line_id']]);
  });

  it('refuses two fields mapping to one column, naming both', () => {
    const d = new Domain('Clash');
    @d.valueObject()
    class Address extends BaseValueObject {
      @field.string() street?: string;
    }
    @d.aggregate()
    class Customer extends BaseAggregate {
      @field.valueObject(() => Address) shippingAddress?: Address;
      @field.string() shippingAddressStreet?: string;
    }
    const build = () => buildTableModel(d.aggregateSchemaFor(Customer), fieldsOf);
    expect(build).toThrow(MappingError);
    expect(build).toThrow(/Customer.shippingAddressStreet and Customer.shippingAddress.street both map to column 'shipping_address_street'/);
  });

  it('refuses a field on a column the framework reserves', () => {
    const d = new Domain('Reserved');
    @d.aggregate()
    class Thing extends BaseAggregate {
      @field.integer() _position?: number;
    }
    expect(() => buildTableModel(d.aggregateSchemaFor(Thing), fieldsOf)).toThrow(/Thing._position maps to column '_position', which the framework reserves/);
  });

  it('moves the parent key aside when the entity already has a field by that name', () => {
    const d = new Domain('Keys');
    @d.aggregate({ schemaName: 'cart' })
    class Cart extends BaseAggregate {
      @field.hasMany(() => Item) items?: Item[];
    }
    @d.entity({ partOf: Cart })
    class Item extends BaseEntity {
      @field.string() cartId?: string;
    }
    expect(buildTableModel(d.aggregateSchemaFor(Cart), fieldsOf).children[0]!.parentKey).toBe('_cart_id');
  });

  it('refuses one entity class held by two fields', () => {
    const d = new Domain('Twice');
    @d.aggregate()
    class Basket extends BaseAggregate {
      @field.hasMany(() => Slot) current?: Slot[];
      @field.hasMany(() => Slot) saved?: Slot[];
    }
    @d.entity({ partOf: Basket })
    class Slot extends BaseEntity {
      @field.string() sku?: string;
    }
    expect(() => buildTableModel(d.aggregateSchemaFor(Basket), fieldsOf)).toThrow(/Entity Slot is reachable through both Basket.current and Basket.saved/);
  });
});
