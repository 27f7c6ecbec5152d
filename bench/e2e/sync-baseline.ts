/**
 * The baseline: the same orders on the same PostgreSQL, but with no broker and no server. With
 * `event_processing = "sync"` each `domain.process(PlaceOrder)` runs the whole flow (reserve,
 * confirm, charge, pay, timeline) in the committing process before it returns, so the figures
 * show what relaying through the outbox, Redis and worker processes costs.
 */
import { domain } from '../../examples/shop/src/domain.js';
import { planOrders, seedCatalogue, sendOrders } from '../../examples/shop/test/support/order-load.js';
import { createProductionShop } from '../../examples/shop/test/support/production-shop.js';
import { phaseResult, type PhaseResult } from './phase-result.js';

export async function syncBaseline(orders: number, skus: readonly string[], concurrency: number): Promise<PhaseResult> {
  const shop = await createProductionShop();
  try {
    await domain.close();
    await domain.init({ config: { event_processing: 'sync' } });
    await seedCatalogue(skus);
    // Each order's SKU differs from the ones in flight beside it: nothing here retries a lost
    // race (sync handlers that fail are only logged), so none may happen.
    const plan = planOrders(orders, { skus, maxLines: 1, mix: false });
    const sent = await sendOrders(plan, { concurrency, asynchronous: false });
    // In-process, the whole flow runs inside domain.process: the order starts when it is sent.
    return await phaseResult(shop.db, new Map([...sent].map(([id, t]) => [id, t.sentAt])));
  } finally {
    await shop.dispose();
  }
}
