/**
 * One round of the benchmark for N workers: a fresh shop (database, broker namespace, tables),
 * `protean-ts server --workers N`, then two phases of orders followed to their last handler
 * effect: as fast as the client can commit them, then at a fixed rate.
 */
import { planOrders, seedCatalogue, sendOrders, type PlannedOrder } from '../../examples/shop/test/support/order-load.js';
import { createProductionShop } from '../../examples/shop/test/support/production-shop.js';
import { readProgress, waitUntilSettled } from '../../examples/shop/test/support/shop-effects.js';
import { startShopServer } from '../../examples/shop/test/support/shop-server.js';
import type { TempDatabase } from '../../examples/shop/test/support/temp-database.js';
import { phaseResult, type PhaseResult } from './phase-result.js';

export interface RoundOptions {
  workers: number;
  /** Orders of the as-fast-as-possible phase. */
  orders: number;
  /** Orders of the fixed-rate phase. */
  rateOrders: number;
  skus: readonly string[];
  /** Commands in flight in the client. */
  concurrency: number;
  /** Commands per second in the fixed-rate phase. */
  rate: number;
  settleTimeoutMs: number;
}

export interface RoundResult {
  workers: number;
  fast: PhaseResult;
  fixed: PhaseResult;
  /** Handler retries the server logged (`handler failed; retrying`). */
  retries: number;
}

export async function serverRound(options: RoundOptions): Promise<RoundResult> {
  const shop = await createProductionShop();
  try {
    await seedCatalogue(options.skus);
    const server = await startShopServer(options.workers, shop.env);
    try {
      const plan = (count: number) => planOrders(count, { skus: options.skus, maxLines: 1, mix: false });
      const fast = await runPhase(shop.db, plan(options.orders), options, undefined);
      const fixed = await runPhase(shop.db, plan(options.rateOrders), options, options.rate);
      const retries = server.logs.filter((line) => line.msg === 'handler failed; retrying').length;
      return { workers: options.workers, fast, fixed, retries };
    } finally {
      const exit = await server.stop('SIGTERM');
      if (exit.code !== 0) console.error(`server ended with ${JSON.stringify(exit)}`);
    }
  } finally {
    await shop.dispose();
  }
}

async function runPhase(db: TempDatabase, orders: PlannedOrder[], options: RoundOptions, ratePerSecond: number | undefined): Promise<PhaseResult> {
  // Phases share the database: this phase is settled once its orders are, on top of earlier ones.
  const before = (await readProgress(db)).settledOrders;
  const sent = await sendOrders(orders, { concurrency: options.concurrency, ratePerSecond });
  await waitUntilSettled(db, before + orders.length, options.settleTimeoutMs);
  // Asynchronously, domain.process returns once the command is committed: the order starts there.
  return phaseResult(db, new Map([...sent].map(([id, t]) => [id, t.processedAt])));
}
