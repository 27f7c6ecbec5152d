/**
 * bench/e2e idle: what a quiet shop server costs with nothing to do, the cost every message at a
 * low rate shares (polls, heartbeats, leases, relay ticks): `protean-ts server --workers N` on
 * PostgreSQL and the broker, left alone for BENCH_IDLE_SECONDS, then its CPU (the server process
 * and its workers, from /proc) and the round database's commits and statements, per second.
 *
 *   npm run bench:e2e:idle [-- --broker nats|rabbitmq]   env: BENCH_WORKERS (1), BENCH_IDLE_SECONDS (20)
 */
import { configureLogging } from '@protean-ts/core';
import { brokerArgument } from '../brokers/bench-broker.js';
import { createProductionShop } from '../../examples/shop/test/support/production-shop.js';
import { startShopServer } from '../../examples/shop/test/support/shop-server.js';
import { counterDelta, databaseCounters } from './database-work.js';
import { waitForPgStats } from './phase-meter.js';
import { processTreeCpuMs } from './process-tree-cpu.js';

const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);

async function main(): Promise<void> {
  configureLogging({ level: 'warn' });
  process.env.SHOP_BROKER = brokerArgument();
  const shop = await createProductionShop();
  try {
    const server = await startShopServer(WORKERS, { ...shop.env, SHOP_PARTITIONS: String(WORKERS) });
    try {
      // Past start-up work (group creation, first leases) before the window opens.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await waitForPgStats();
      // The window runs until the statistics of its last second have reached pg_stat_database.
      const start = { at: Date.now(), cpu: processTreeCpuMs(server.child.pid!), db: await databaseCounters(shop.db) };
      await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
      await waitForPgStats();
      const seconds = (Date.now() - start.at) / 1000;
      const cpu = processTreeCpuMs(server.child.pid!) - start.cpu;
      const work = counterDelta(await databaseCounters(shop.db), start.db);
      const perSecond = (n: number) => (n / seconds).toFixed(1);
      console.log(
        `idle server, ${WORKERS} worker(s), ${process.env.SHOP_BROKER}, ${seconds.toFixed(0)} s: CPU ${perSecond(cpu)} ms/s, ` +
          `commits ${perSecond(work.commits)}/s, statements ${work.statements === null ? '- (no pg_stat_statements)' : `${perSecond(work.statements)}/s`}`,
      );
    } finally {
      await server.stop('SIGTERM');
    }
  } finally {
    await shop.dispose();
  }
}

await main();
