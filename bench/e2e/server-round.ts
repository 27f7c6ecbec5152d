/**
 * One round of the benchmark for N workers: a fresh shop (database, broker namespace, tables),
 * `protean-ts server --workers N`, then two phases of orders followed to their last handler
 * effect: as fast as the client can commit them, then at a fixed rate. Handled messages come from
 * the server's /metrics, CPU from /proc for the server process and its workers.
 */
import { planOrders, seedCatalogue, sendOrders, type PlannedOrder } from '../../examples/shop/test/support/order-load.js';
import { createProductionShop } from '../../examples/shop/test/support/production-shop.js';
import { readProgress, waitUntilSettled } from '../../examples/shop/test/support/shop-effects.js';
import { startShopServer } from '../../examples/shop/test/support/shop-server.js';
import type { TempDatabase } from '../../examples/shop/test/support/temp-database.js';
import { handledMessages, metricsUrl } from './handled-messages.js';
import { requireAllPaid } from './order-outcomes.js';
import { PhaseMeter, waitForPgStats, type HandlingProbe } from './phase-meter.js';
import { phaseResult, type PhaseResult } from './phase-result.js';
import { processTreeCpuMs } from './process-tree-cpu.js';

export interface RoundOptions {
  workers: number;
  /** A folder for V8 CPU profiles of the server and its workers (`--cpu-prof`), or none. */
  profileDir?: string;
  /** `outbox.partitions` of the round (SHOP_PARTITIONS). */
  partitions: number;
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
  /** Count Redis commands (the broker is Redis). */
  countRedis: boolean;
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
    const nodeArgs = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
    const server = await startShopServer(options.workers, { ...shop.env, SHOP_PARTITIONS: String(options.partitions) }, undefined, nodeArgs);
    try {
      const url = metricsUrl(server);
      const probe: HandlingProbe = { handled: () => handledMessages(url), cpuMs: () => processTreeCpuMs(server.child.pid!) };
      const plan = (count: number) => planOrders(count, { skus: options.skus, maxLines: 1, mix: false });
      // The seeding's commits reach pg_stat_database before the first phase's opening reading.
      await waitForPgStats();
      const fast = await runPhase(shop.db, probe, plan(options.orders), options, undefined, `${options.workers} worker(s), fast phase`);
      const fixed = await runPhase(shop.db, probe, plan(options.rateOrders), options, options.rate, `${options.workers} worker(s), ${options.rate}/s phase`);
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

async function runPhase(
  db: TempDatabase,
  probe: HandlingProbe,
  orders: PlannedOrder[],
  options: RoundOptions,
  ratePerSecond: number | undefined,
  phase: string,
): Promise<PhaseResult> {
  // Phases share the database: this phase is settled once its orders are, on top of earlier ones.
  const before = (await readProgress(db)).settledOrders;
  const meter = await PhaseMeter.start(db, probe, options.countRedis);
  const sent = await sendOrders(orders, { concurrency: options.concurrency, ratePerSecond });
  let polls = 0;
  await waitUntilSettled(db, before + orders.length, options.settleTimeoutMs, () => polls++).catch((error: unknown) => {
    throw new Error(`${phase}: waiting for ${orders.length} orders to be paid or cancelled: ${(error as Error).message}`, { cause: error });
  });
  const costs = await meter.finish(polls);
  await requireAllPaid(db, [...sent.keys()], phase);
  // Asynchronously, domain.process returns once the command is committed: the order starts there.
  return phaseResult(db, new Map([...sent].map(([id, t]) => [id, t.processedAt])), costs);
}
