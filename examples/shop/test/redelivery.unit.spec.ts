/**
 * Delivery is at-least-once: after a crash or a reclaim, a handler sees a message again. Here
 * every committed event is delivered a second time, the way a stream subscription would
 * (`domain.handleMessage`), and the shop must end up exactly where it was.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DECLINED_CARD, domain, GoodsReceipt, Order, OrderTimeline, Payment, Reservation, StockItem } from '../src/domain.js';
import { closeShop, committedMessages, givenStock, loggedErrors, openShop, whenOrdering } from './support/shop-fixture.js';

/** Everything the handlers write, as plain data. */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const plain = async (aggregate: Parameters<typeof domain.repositoryFor>[0]) =>
    (await domain.repositoryFor(aggregate).query()).map((found) => found.toPlain()).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return {
    orders: await plain(Order),
    reservations: await plain(Reservation),
    payments: await plain(Payment),
    stock: await plain(StockItem),
    receipts: await plain(GoodsReceipt),
    timelines: await plain(OrderTimeline),
  };
}

describe('handling every event twice', () => {
  beforeEach(() => openShop());
  afterEach(() => expect(loggedErrors).toEqual([]));
  afterAll(() => closeShop());

  it('changes nothing and raises no new event', async () => {
    await givenStock('CUP', 5);
    await givenStock('MILL', 1);
    await whenOrdering({ CUP: 2, MILL: 1 });
    await whenOrdering({ MILL: 1 });
    await whenOrdering({ CUP: 2 }, DECLINED_CARD);
    const before = await snapshot();
    const messages = await committedMessages();
    expect(messages.length).toBeGreaterThan(10);

    for (const envelope of messages) await domain.handleMessage(envelope);

    expect(await snapshot()).toEqual(before);
    expect(await committedMessages()).toHaveLength(messages.length);
  });
});
