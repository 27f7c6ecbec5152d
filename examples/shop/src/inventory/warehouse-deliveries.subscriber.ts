/**
 * The warehouse system announces deliveries on its own broker stream, in its own words. This
 * subscriber translates each message into a ReceiveStock command, so nothing of the
 * warehouse's format leaks into the domain.
 */
import { BaseSubscriber, ValidationError, type CreateProps } from '@protean-ts/core';
import { domain } from '../shop.js';
import { Money } from '../shared/money.js';
import { ReceiveStock } from './receive-stock.command.js';

/**
 * The warehouse publishes envelopes like every broker message (`{ data, metadata: { headers:
 * { id, type } } }`), with `data` = `{ delivery_id, sku, units, product_name?, unit_price_cents? }`.
 */
export const WAREHOUSE_DELIVERIES_STREAM = 'warehouse.deliveries';

@domain.subscriber({ stream: WAREHOUSE_DELIVERIES_STREAM })
export class WarehouseDeliveries extends BaseSubscriber {
  async receive(payload: Record<string, unknown>): Promise<void> {
    await domain.process(ReceiveStock.create(translate(payload.data)));
  }
}

function translate(data: unknown): CreateProps<ReceiveStock> {
  const { delivery_id: deliveryId, sku, units, product_name: name, unit_price_cents: cents } = (data ?? {}) as Record<string, unknown>;
  if (typeof deliveryId !== 'string' || typeof sku !== 'string' || typeof units !== 'number') {
    throw new ValidationError({ data: ['a delivery needs delivery_id (string), sku (string) and units (number)'] }, 'WarehouseDeliveries');
  }
  return {
    deliveryId,
    sku,
    quantity: units,
    name: typeof name === 'string' ? name : undefined,
    price: typeof cents === 'number' ? Money.of(cents / 100) : undefined,
  };
}
