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
 *        BENCH_CONCURRENCY (32), BENCH_PAYMENT_TIMEOUT (1h: SHOP_PAYMENT_TIMEOUT of every round),
 *        BENCH_PARTITIONS (`workers`: outbox.partitions equal to the round's worker count; or a
 *        number for every round, 1 for no partitions), BENCH_BATCH (16: the subscriptions'
 *        batch_size, SHOP_BATCH_SIZE, in the baseline and the servers), BENCH_PROFILE (a folder:
 *        V8 CPU profiles of each round's server process and workers, written when they stop)
 *
 * Beside orders/s and latency, each phase's cost: messages handled per second and per order,
 * handling CPU per handled message (server rounds: the server process and its workers from
 * /proc; in-process: this whole process, client included), commits and row updates per order
 * (pg_stat_database of the round's database) and Redis commands per order (INFO commandstats,
 * server-wide). Every order must end paid: the run stops, naming the counts, if one does not,
 * and a phase where nothing moves for a minute stops it naming what it waited for.
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
// The longest a phase may take to settle; a slower one fails the run.
const SETTLE_TIMEOUT_MS = 900_000;
// The shop cancels an order whose payment has not come within SHOP_PAYMENT_TIMEOUT (5 s by
// default). Orders queue here for minutes, so the timeout outlasts any phase: an order cancelled
// all the same is a fault, and requireAllPaid stops the run on it.
const PAYMENT_TIMEOUT = process.env.BENCH_PAYMENT_TIMEOUT ?? '1h';
// Key affinity: by default as many partitions as the round has workers, each worker reading one.
const PARTITIONS = process.env.BENCH_PARTITIONS ?? 'workers';
// Batched transactions (server.stream_subscription.batch_size, the shop's 16 by default); 1 commits each message alone.
const BATCH = process.env.BENCH_BATCH ?? '16';
const PROFILE_DIR = process.env.BENCH_PROFILE || undefined;
const partitionsFor = (workers: number) => (PARTITIONS === 'workers' ? workers : Number(PARTITIONS));
// One line per order, SKUs spread so that orders in flight together rarely share one: the
// figures measure the framework, not stock contention.
const SKUS = plentifulSkus(500);

const perSecond = (n: number) => `${n.toFixed(0).padStart(6)}/s`;
const ms = (n: number) => `${n.toFixed(0).padStart(6)} ms`;
const phase = (p: PhaseResult) => `${perSecond(p.throughput)} ${ms(p.p50)} ${ms(p.p99)}`;
const fixed = (n: number, digits: number, width: number) => (Number.isNaN(n) ? '-' : n.toFixed(digits)).padStart(width);
const costs = (p: PhaseResult) =>
  `${p.handledPerSecond.toFixed(0)} handled/s, ${p.cpuPerHandledUs.toFixed(0)} µs CPU/handled, ${p.commitsPerOrder.toFixed(1)} commits/order`;
const costColumns = (p: PhaseResult) =>
  `${fixed(p.handledPerSecond, 0, 9)} ${fixed(p.handledPerOrder, 1, 13)} ${fixed(p.cpuPerHandledUs, 0, 14)} ${fixed(p.statementsPerOrder, 1, 16)} ${fixed(p.commitsPerOrder, 1, 13)} ${fixed(p.rowUpdatesPerOrder, 1, 18)} ${fixed(p.redisPerOrder, 1, 16)}`;

/** The median of each figure over rounds. */
function medianPhase(phases: readonly PhaseResult[]): PhaseResult {
  const of = (key: Exclude<keyof PhaseResult, 'orders' | 'hops'>) => median(phases.map((p) => p[key]));
  const hop = (key: keyof PhaseResult['hops']) => median(phases.map((p) => p.hops[key]));
  return {
    orders: phases[0]!.orders,
    throughput: of('throughput'),
    p50: of('p50'),
    p99: of('p99'),
    handledPerSecond: of('handledPerSecond'),
    handledPerOrder: of('handledPerOrder'),
    cpuPerHandledUs: of('cpuPerHandledUs'),
    statementsPerOrder: of('statementsPerOrder'),
    commitsPerOrder: of('commitsPerOrder'),
    rowUpdatesPerOrder: of('rowUpdatesPerOrder'),
    redisPerOrder: of('redisPerOrder'),
    hops: { relayP50: hop('relayP50'), relayP99: hop('relayP99'), handoffP50: hop('handoffP50'), handoffP99: hop('handoffP99') },
  };
}

async function main(): Promise<void> {
  configureLogging({ level: 'warn' });
  // The shop's production-shape support (createProductionShop) reads the broker from SHOP_BROKER.
  const broker = brokerArgument();
  process.env.SHOP_BROKER = broker;
  // Read where the manager runs: here for the baseline, and by the server's processes, which inherit this environment.
  process.env.SHOP_PAYMENT_TIMEOUT = PAYMENT_TIMEOUT;
  process.env.SHOP_BATCH_SIZE = BATCH;
  console.log(
    `bench/e2e: broker ${broker}; ${ORDERS} orders as fast as possible (client concurrency ${CONCURRENCY}), then ${RATE * RATE_SECONDS} at ${RATE}/s; workers ${WORKERS.join(', ')}; ${ROUNDS} round(s); payment timeout ${PAYMENT_TIMEOUT}; partitions ${PARTITIONS}; batch_size ${BATCH}`,
  );

  const baseline = await syncBaseline(ORDERS, SKUS, CONCURRENCY, SETTLE_TIMEOUT_MS);
  console.log(`in-process baseline (Engine in this process, no broker server): ${phase(baseline)} | ${costs(baseline)}`);

  const results = new Map<number, RoundResult[]>(WORKERS.map((w) => [w, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const workers of WORKERS) {
      const result = await serverRound({
        workers,
        partitions: partitionsFor(workers),
        profileDir: PROFILE_DIR,
        orders: ORDERS,
        rateOrders: RATE * RATE_SECONDS,
        skus: SKUS,
        concurrency: CONCURRENCY,
        rate: RATE,
        settleTimeoutMs: SETTLE_TIMEOUT_MS,
        countRedis: broker === 'redis',
      });
      results.get(workers)!.push(result);
      console.log(
        `round ${round}, server --workers ${workers}: fast ${phase(result.fast)} | ${RATE}/s ${phase(result.fixed)} | ${result.retries} handler retries | fast: ${costs(result.fast)}`,
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
  console.log('');
  console.log('cost of the fast phase (CPU: the server process and its workers; in-process: this process, client included)');
  console.log(`workers               handled/s handled/order CPU/handled µs statements/order commits/order row updates/order Redis cmds/order`);
  console.log(`in-process          ${costColumns(baseline)}`);
  for (const s of summary) console.log(`${String(s.workers).padEnd(20)}${costColumns(s.fast)}`);
  console.log(`at ${RATE}/s`);
  for (const s of summary) console.log(`${String(s.workers).padEnd(20)}${costColumns(s.fixed)}`);
  console.log('');
  console.log(`between hops at ${RATE}/s (ms): relay = a row committed -> published; hand-off = published -> the reacting handler's transaction began`);
  console.log('workers             relay p50   relay p99   hand-off p50   hand-off p99');
  const hops = (p: PhaseResult) =>
    `${fixed(p.hops.relayP50, 1, 9)}   ${fixed(p.hops.relayP99, 1, 9)}   ${fixed(p.hops.handoffP50, 1, 12)}   ${fixed(p.hops.handoffP99, 1, 12)}`;
  // The baseline has no fixed-rate phase: its figures are of a queue, printed for the record.
  console.log(`in-process (fast)   ${hops(baseline)}`);
  for (const s of summary) console.log(`${String(s.workers).padEnd(20)}${hops(s.fixed)}`);
}

await main();
