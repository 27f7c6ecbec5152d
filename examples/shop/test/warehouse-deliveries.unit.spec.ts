/**
 * The warehouse subscriber translates the warehouse's messages into ReceiveStock. The server
 * calls `receive` for each message of its stream; here the test calls it directly.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { domain, GoodsReceipt, WarehouseDeliveries } from '../src/domain.js';
import { closeShop, openShop, stockOf } from './support/shop-fixture.js';
import { warehouseDelivery } from './support/warehouse-message.js';

describe('WarehouseDeliveries', () => {
  beforeEach(() => openShop());
  afterAll(() => closeShop());
  const subscriber = new WarehouseDeliveries();

  it('takes a new product into stock with its name and price', async () => {
    await subscriber.receive(warehouseDelivery({ delivery_id: 'd-1', sku: 'CUP', units: 12, product_name: 'Espresso cup', unit_price_cents: 650 }));

    expect(await stockOf('CUP')).toEqual({ onHand: 12, reserved: 0 });
    const receipt = await domain.repositoryFor(GoodsReceipt).get('d-1');
    expect(receipt.quantity).toBe(12);
    expect(receipt.receivedAt).toBeInstanceOf(Date);
  });

  it('counts a delivery announced twice once', async () => {
    // Two messages (two message ids) about one delivery.
    const delivery = { delivery_id: 'd-2', sku: 'CUP', units: 5, product_name: 'Espresso cup', unit_price_cents: 650 };
    await subscriber.receive(warehouseDelivery(delivery));
    await subscriber.receive(warehouseDelivery(delivery));
    await subscriber.receive(warehouseDelivery({ delivery_id: 'd-3', sku: 'CUP', units: 1 }));

    expect(await stockOf('CUP')).toEqual({ onHand: 6, reserved: 0 });
  });

  it('refuses a message that is not a delivery, and a new product without a name and price', async () => {
    await expect(subscriber.receive(warehouseDelivery({ sku: 'CUP', units: '5' }))).rejects.toThrow(
      'a delivery needs delivery_id (string), sku (string) and units (number)',
    );
    await expect(subscriber.receive(warehouseDelivery({ delivery_id: 'd-4', sku: 'NEW', units: 5 }))).rejects.toThrow(
      'NEW is a new product: give its name and price',
    );
  });
});
