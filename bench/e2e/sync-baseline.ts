/**
 * The baseline: the same orders on the same PostgreSQL, but with no broker server and no server
 * process. Each `domain.process(PlaceOrder)` commits the order in this process, and the server's
 * Engine runs here too (the shop's EmbeddedServer) with the in-process broker: it relays the
 * outbox and runs the order-fulfilment process manager, the commands it sends and the timeline,
 * so the figures show what the broker and worker processes cost. (Before the shop's flow was driven by
 * a process manager this baseline used event_processing = "sync", handling the whole flow inside
 * domain.process; a manager's commands and timeouts always go through the outbox, so that no
 * longer runs the flow.)
 */
import { domain } from '../../examples/shop/src/domain.js';
import { EmbeddedServer } from '../../examples/shop/src/embedded-server.js';
import { planOrders, seedCatalogue, sendOrders } from '../../examples/shop/test/support/order-load.js';
import { createProductionShop } from '../../examples/shop/test/support/production-shop.js';
import type { TempDatabase } from '../../examples/shop/test/support/temp-database.js';
import { phaseResult, type PhaseResult } from './phase-result.js';

export async function syncBaseline(orders: number, skus: readonly string[], concurrency: number): Promise<PhaseResult> {
  const shop = await createProductionShop();
  let server: EmbeddedServer | null = null;
  try {
    await domain.close();
    await domain.init({ config: { brokers: { default: { provider: 'inline' } } } });
    server = await EmbeddedServer.start(domain);
    await seedCatalogue(skus);
    await server.drained();
    const plan = planOrders(orders, { skus, maxLines: 1, mix: false });
    const sent = await sendOrders(plan, { concurrency, asynchronous: false });
    await untilPaid(shop.db, orders);
    // The order starts when it is sent: its PlaceOrder is handled in this process.
    return await phaseResult(shop.db, new Map([...sent].map(([id, t]) => [id, t.sentAt])));
  } finally {
    await server?.stop();
    await shop.dispose();
  }
}

async function untilPaid(db: TempDatabase, orders: number, timeoutMs = 900_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db.query<{ paid: string }>(`SELECT count(*) AS paid FROM order_timeline WHERE entries -> -1 ->> 'step' = 'paid'`);
    if (Number(row!.paid) >= orders) return;
    if (Date.now() > deadline) throw new Error(`only ${row!.paid} of ${orders} orders paid after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
