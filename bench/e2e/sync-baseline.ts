/**
 * The baseline: the same orders on the same PostgreSQL, but with no broker server and no server
 * process. Each `domain.process(PlaceOrder)` commits the order in this process, and the server's
 * Engine runs here too (the shop's EmbeddedServer) with the in-process broker: it relays the
 * outbox and runs the order-fulfilment process manager, the commands it sends and the timeline,
 * so the figures show what the broker and worker processes cost. (Before the shop's flow was driven by
 * a process manager this baseline used event_processing = "sync", handling the whole flow inside
 * domain.process; a manager's commands and timeouts always go through the outbox, so that no
 * longer runs the flow.) Its CPU per handled message is this whole process's: client included.
 */
import { domain } from '../../examples/shop/src/domain.js';
import { EmbeddedServer } from '../../examples/shop/src/embedded-server.js';
import { planOrders, seedCatalogue, sendOrders } from '../../examples/shop/test/support/order-load.js';
import { createProductionShop } from '../../examples/shop/test/support/production-shop.js';
import { waitUntilSettled } from '../../examples/shop/test/support/shop-effects.js';
import { requireAllPaid } from './order-outcomes.js';
import { PhaseMeter, waitForPgStats } from './phase-meter.js';
import { phaseResult, type PhaseResult } from './phase-result.js';

const PHASE = 'in-process baseline';

export async function syncBaseline(orders: number, skus: readonly string[], concurrency: number, settleTimeoutMs: number): Promise<PhaseResult> {
  const shop = await createProductionShop();
  let server: EmbeddedServer | null = null;
  try {
    await domain.close();
    await domain.init({ config: { brokers: { default: { provider: 'inline' } } } });
    const engine = (server = await EmbeddedServer.start(domain));
    await seedCatalogue(skus);
    await server.drained();
    await waitForPgStats();
    const processCpuMs = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    const meter = await PhaseMeter.start(shop.db, { handled: async () => engine.handledMessages(), cpuMs: processCpuMs }, false);
    const plan = planOrders(orders, { skus, maxLines: 1, mix: false });
    const sent = await sendOrders(plan, { concurrency, asynchronous: false });
    let polls = 0;
    await waitUntilSettled(shop.db, orders, settleTimeoutMs, () => polls++).catch((error: unknown) => {
      throw new Error(`${PHASE}: waiting for ${orders} orders to be paid or cancelled: ${(error as Error).message}`, { cause: error });
    });
    const costs = await meter.finish(polls);
    await requireAllPaid(shop.db, [...sent.keys()], PHASE);
    // The order starts when it is sent: its PlaceOrder is handled in this process.
    return await phaseResult(shop.db, new Map([...sent].map(([id, t]) => [id, t.sentAt])), costs);
  } finally {
    await server?.stop();
    await shop.dispose();
  }
}
