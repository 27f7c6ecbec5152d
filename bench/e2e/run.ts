/**
 * bench/e2e: the example shop end to end, from a committed PlaceOrder to its last handler
 * effect (the order's timeline recording it paid: reserve stock, confirm, charge, pay and
 * project, five handlers in a row), through `protean-ts server --workers N` on PostgreSQL and
 * Redis (or NATS JetStream with `--broker nats`, RabbitMQ with `--broker rabbitmq`: the shop's
 * PROTEAN_ENV=nats / rabbitmq overlays, chosen through SHOP_BROKER), for N = 1, 2, 4. Baseline:
 * the same orders on the same PostgreSQL with the server's Engine in this process and the
 * in-process broker (no broker server, no worker processes).
 *
 *   npm run bench:e2e [-- --broker nats|rabbitmq]
 *   env: BENCH_ORDERS (2000, per fast phase), BENCH_WORKERS (1,2,4), BENCH_ROUNDS (1),
 *        BENCH_RATE (10 orders/s), BENCH_RATE_SECONDS (30, length of the fixed-rate phase),
 *        BENCH_CONCURRENCY (32)
 *
 * Needs PostgreSQL on 127.0.0.1:5432 and the broker's server (Redis on 6379, NATS on 4222, or
 * RabbitMQ on 5672 with `rabbitmqctl` on this machine); every round uses a database and a broker
 * namespace of its own (Redis prefix, JetStream stream prefix, RabbitMQ virtual host) and removes
 * them. With several rounds, worker counts take turns (1, 2, 4, 1, 2, 4, …) so background load
 * hits them alike, and medians are reported.
 */
import { configureLogging } from '@protean-ts/core';
import { brokerArgument } from '../brokers/bench-broker.js';
import { plentifulSkus } from '../../examples/shop/test/support/order-load.js';
import { median } from './percentiles.js';
import type { PhaseResult } from './phase-result.js';
import { serverRound, type RoundResult } from './server-round.js';
import { syncBaseline } from './sync-baseline.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 2000);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
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

/** The median of each figure over rounds. */
function medianPhase(phases: readonly PhaseResult[]): PhaseResult {
  return {
    orders: phases[0]!.orders,
    throughput: median(phases.map((p) => p.throughput)),
    p50: median(phases.map((p) => p.p50)),
    p99: median(phases.map((p) => p.p99)),
  };
}

async function main(): Promise<void> {
  configureLogging({ level: 'warn' });
  // The shop's production-shape support (createProductionShop) reads the broker from SHOP_BROKER.
  const broker = brokerArgument();
  process.env.SHOP_BROKER = broker;
  console.log(
    `bench/e2e: broker ${broker}; ${ORDERS} orders as fast as possible (client concurrency ${CONCURRENCY}), then ${RATE * RATE_SECONDS} at ${RATE}/s; workers ${WORKERS.join(', ')}; ${ROUNDS} round(s)`,
  );

  const baseline = await syncBaseline(ORDERS, SKUS, CONCURRENCY);
  console.log(`in-process baseline (Engine in this process, no broker server): ${phase(baseline)}`);

  const results = new Map<number, RoundResult[]>(WORKERS.map((w) => [w, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const workers of WORKERS) {
      const result = await serverRound({
        workers,
        orders: ORDERS,
        rateOrders: RATE * RATE_SECONDS,
        skus: SKUS,
        concurrency: CONCURRENCY,
        rate: RATE,
        settleTimeoutMs: 900_000,
      });
      results.get(workers)!.push(result);
      console.log(
        `round ${round}, server --workers ${workers}: fast ${phase(result.fast)} | ${RATE}/s ${phase(result.fixed)} | ${result.retries} handler retries`,
      );
    }
  }

  const summary = WORKERS.map((workers) => ({
    workers,
    fast: medianPhase(results.get(workers)!.map((r) => r.fast)),
    fixed: medianPhase(results.get(workers)!.map((r) => r.fixed)),
  }));
  const one = summary.find((s) => s.workers === 1);
  console.log('');
  console.log(`medians of ${ROUNDS} round(s)   as fast as possible             at ${RATE}/s                  scaling    vs`);
  console.log('workers                 orders/s      p50       p99        p50       p99      vs 1  baseline');
  console.log(`in-process            ${phase(baseline)}`);
  for (const s of summary) {
    const scaling = one ? (s.fast.throughput / one.fast.throughput).toFixed(2) : '-';
    const vsBaseline = (s.fast.throughput / baseline.throughput).toFixed(2);
    console.log(
      `${String(s.workers).padEnd(20)}  ${phase(s.fast)}  ${ms(s.fixed.p50)} ${ms(s.fixed.p99)}    ${scaling.padStart(6)}    ${vsBaseline.padStart(6)}`,
    );
  }
}

await main();
