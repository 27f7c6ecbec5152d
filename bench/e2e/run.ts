/**
 * bench/e2e: the example shop end to end, from a committed PlaceOrder to its last handler
 * effect (the order's timeline recording it paid: reserve stock, confirm, charge, pay and
 * project, five handlers in a row), through `protean-ts server --workers N` on PostgreSQL and
 * Redis, for N = 1, 2, 4. Baseline: the same orders handled in-process (event_processing =
 * "sync", no broker, no server) on the same PostgreSQL.
 *
 *   npm run bench:e2e
 *   env: BENCH_ORDERS (2000, per fast phase), BENCH_WORKERS (1,2,4), BENCH_RATE (10 orders/s),
 *        BENCH_RATE_SECONDS (30, length of the fixed-rate phase), BENCH_CONCURRENCY (32)
 *
 * Needs PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379; every round uses a database
 * and a Redis prefix of its own and removes them.
 */
import { configureLogging } from '@protean-ts/core';
import { plentifulSkus } from '../../examples/shop/test/support/order-load.js';
import type { PhaseResult } from './phase-result.js';
import { serverRound, type RoundResult } from './server-round.js';
import { syncBaseline } from './sync-baseline.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 2000);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
// Below what one worker sustains, so the fixed-rate phase shows latency without a queue.
const RATE = Number(process.env.BENCH_RATE ?? 10);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 30);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
// One line per order, SKUs spread so that orders in flight together rarely share one: the
// figures measure the framework, not stock contention.
const SKUS = plentifulSkus(500);

const perSecond = (n: number) => `${n.toFixed(0).padStart(6)}/s`;
const ms = (n: number) => `${n.toFixed(0).padStart(6)} ms`;
const phase = (p: PhaseResult) => `${perSecond(p.throughput)} ${ms(p.p50)} ${ms(p.p99)}`;

async function main(): Promise<void> {
  configureLogging({ level: 'warn' });
  console.log(`bench/e2e: ${ORDERS} orders as fast as possible (client concurrency ${CONCURRENCY}), then ${RATE * RATE_SECONDS} at ${RATE}/s; workers ${WORKERS.join(', ')}`);

  const baseline = await syncBaseline(ORDERS, SKUS, CONCURRENCY);
  console.log(`in-process baseline (sync, no server): ${phase(baseline)}`);

  const rounds: RoundResult[] = [];
  for (const workers of WORKERS) {
    const round = await serverRound({ workers, orders: ORDERS, rateOrders: RATE * RATE_SECONDS, skus: SKUS, concurrency: CONCURRENCY, rate: RATE, settleTimeoutMs: 900_000 });
    rounds.push(round);
    console.log(`server --workers ${workers}: fast ${phase(round.fast)} | ${RATE}/s ${phase(round.fixed)} | ${round.retries} handler retries`);
  }

  const one = rounds.find((r) => r.workers === 1);
  console.log('');
  console.log('                        as fast as possible             fixed rate ' + `${RATE}/s`.padEnd(8) + '     scaling   vs');
  console.log('workers           orders/s     p50      p99         p50      p99         vs 1   baseline');
  console.log(`in-process        ${phase(baseline)}`);
  for (const r of rounds) {
    const scaling = one ? (r.fast.throughput / one.fast.throughput).toFixed(2) : '-';
    const vsBaseline = (r.fast.throughput / baseline.throughput).toFixed(2);
    console.log(`${String(r.workers).padEnd(15)}   ${phase(r.fast)}   ${ms(r.fixed.p50)} ${ms(r.fixed.p99)}   ${scaling.padStart(6)}   ${vsBaseline.padStart(6)}`);
  }
}

await main();
