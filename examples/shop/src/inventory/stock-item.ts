/**
 * What the warehouse holds of one product, identified by its SKU: units on hand, and how many
 * of them are reserved for open orders. Reservations never exceed what is on hand.
 *
 * Event-sourced: a stock item is the history of its product (catalogued, deliveries received,
 * units reserved and released for orders), stored in the event store as the stream
 * `shop::stock_item-<sku>`, and its fields change only in the @apply methods below. A busy
 * product gathers thousands of events; snapshot_threshold in domain.toml keeps its loads short.
 */
import { apply, BaseAggregate, BaseEvent, field, invariant, ValidationError, type CreateProps } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';

@domain.aggregate({ eventSourced: true })
export class StockItem extends BaseAggregate {
  @field.string({ identifier: true, maxLength: 40 }) sku!: string;
  // Set by ProductCatalogued, the first event of every stock item.
  @field.string({ maxLength: 120 }) name!: string;
  @field.valueObject(() => Money) price!: Money;
  @field.integer({ min: 0, default: 0 }) onHand!: number;
  @field.integer({ min: 0, default: 0 }) reserved!: number;

  /** A product the warehouse has never held: its stock starts empty. */
  static catalogue(sku: string, name: string, price: Money): StockItem {
    // Only the identity: every other field comes from the events, starting with this one.
    const item = StockItem.create({ sku } as CreateProps<StockItem>);
    item.raise(ProductCatalogued.create({ sku, name, price }));
    return item;
  }

  available(): number {
    return this.onHand - this.reserved;
  }

  canReserve(quantity: number): boolean {
    return quantity <= this.available();
  }

  receive(quantity: number): void {
    this.raise(StockReceived.create({ sku: this.sku, quantity, onHandAfter: this.onHand + quantity }));
  }

  /** Callers check canReserve first: running out of stock is an outcome, not an error. */
  reserve(orderId: string, quantity: number): void {
    this.raise(UnitsReserved.create({ sku: this.sku, orderId, quantity }));
  }

  release(orderId: string, quantity: number): void {
    this.raise(UnitsReleased.create({ sku: this.sku, orderId, quantity }));
  }

  @apply(() => ProductCatalogued) catalogued(event: ProductCatalogued): void {
    this.name = event.name;
    this.price = event.price;
  }

  @apply(() => StockReceived) received(event: StockReceived): void {
    this.onHand += event.quantity;
  }

  @apply(() => UnitsReserved) unitsReserved(event: UnitsReserved): void {
    this.reserved += event.quantity;
  }

  @apply(() => UnitsReleased) unitsReleased(event: UnitsReleased): void {
    this.reserved -= event.quantity;
  }

  @invariant.post() reservedWithinOnHand(): void {
    if (this.reserved > this.onHand) throw new ValidationError({ reserved: [`${this.reserved} reserved but only ${this.onHand} on hand`] });
  }
}

@domain.event({ partOf: StockItem })
export class ProductCatalogued extends BaseEvent {
  @field.string({ required: true }) sku!: string;
  @field.string({ required: true }) name!: string;
  @field.valueObject(() => Money, { required: true }) price!: Money;
}

/**
 * Version 2: v1 named the stock after the delivery `onHand`, which readers took for the stock
 * before it; v2 calls it `onHandAfter`. Stored v1 events are read through StockReceivedV1ToV2.
 */
@domain.event({ partOf: StockItem, version: 2 })
export class StockReceived extends BaseEvent {
  @field.string({ required: true }) sku!: string;
  @field.integer({ required: true }) quantity!: number;
  @field.integer({ required: true }) onHandAfter!: number;
}

@domain.event({ partOf: StockItem })
export class UnitsReserved extends BaseEvent {
  @field.string({ required: true }) sku!: string;
  @field.identifier({ required: true }) orderId!: string;
  @field.integer({ required: true, min: 1 }) quantity!: number;
}

@domain.event({ partOf: StockItem })
export class UnitsReleased extends BaseEvent {
  @field.string({ required: true }) sku!: string;
  @field.identifier({ required: true }) orderId!: string;
  @field.integer({ required: true, min: 1 }) quantity!: number;
}
