/**
 * bench/persistence: unit-of-work commits per second through the framework (one aggregate with
 * one child, `domain.uow(() => repo.add(order))`, outbox OFF so only persistence is measured)
 * against raw node-postgres writing the same rows, same pool size, same concurrency, same run.
 * Rounds alternate between the two so background load hits both alike; medians are compared.
 *
 *   npm run bench:persistence     (env: BENCH_DATABASE_URL, BENCH_COMMITS, BENCH_CONCURRENCY,
 *                                  BENCH_POOL_SIZE, BENCH_ROUNDS)
 */
import { createTemporaryDatabase, LOCAL_POSTGRES_URI } from '@protean-ts/conformance/fixtures';
import '@protean-ts/mikro-orm';
import { BenchLine, BenchOrder, benchDomain } from './bench-model.js';
import { measure, median, type Measurement } from './measure.js';
import { RawBaseline } from './raw-baseline.js';

const COMMITS = Number(process.env.BENCH_COMMITS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const POOL_SIZE = Number(process.env.BENCH_POOL_SIZE ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARM_UP = Math.min(1000, COMMITS);
const TARGET_RATIO = 0.7;

function newOrder(): BenchOrder {
  return BenchOrder.create({ customer: 'Ann', total: 12.5, lines: [BenchLine.create({ sku: 'SKU-1', quantity: 2 })] });
}

function report(label: string, runs: Measurement[]): number {
  const rate = median(runs.map((m) => m.rate));
  const cpu = median(runs.map((m) => m.cpuMicros));
  console.log(`${label} ${rate.toFixed(0)} commits/s (median), ${cpu.toFixed(0)} µs client CPU per commit`);
  return rate;
}

async function main(): Promise<void> {
  const db = await createTemporaryDatabase({ label: 'pt_bench', serverUri: process.env.BENCH_DATABASE_URL ?? LOCAL_POSTGRES_URI });
  const uri = db.uri;
  console.log(`bench/persistence: database ${db.name}, ${COMMITS} commits x ${ROUNDS} rounds, concurrency ${CONCURRENCY}, pool_size ${POOL_SIZE}, outbox off`);
  const raw = new RawBaseline(uri, POOL_SIZE, 'raw_order', 'raw_order_line', 'bench_order_id');
  try {
    // bench/persistence/domain.toml turns the outbox off: this measures persistence alone.
    process.env.PT_BENCH_DATABASE_URI = uri;
    await benchDomain.init({ config: { databases: { default: { pool_size: POOL_SIZE } } } });
    if (benchDomain.outboxEnabled) throw new Error('the outbox must be off for this benchmark');
    await benchDomain.providers.get('default')!.setupSchema([benchDomain.aggregateSchemaFor(BenchOrder)], { outbox: false });
    await raw.createTables('bench_order', 'bench_line');
    const repo = benchDomain.repositoryFor(BenchOrder);
    const framework = () => benchDomain.uow(async () => void (await repo.add(newOrder())));
    const rawCommit = () => raw.commit();

    console.log('warming up…');
    await measure(WARM_UP, CONCURRENCY, rawCommit);
    await measure(WARM_UP, CONCURRENCY, framework);

    const raws: Measurement[] = [];
    const frameworks: Measurement[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const r = await measure(COMMITS, CONCURRENCY, rawCommit);
      const f = await measure(COMMITS, CONCURRENCY, framework);
      raws.push(r);
      frameworks.push(f);
      console.log(`round ${round}/${ROUNDS}: raw pg ${r.rate.toFixed(0)}/s, framework ${f.rate.toFixed(0)}/s, ratio ${(f.rate / r.rate).toFixed(2)}`);
    }
    const expected = ROUNDS * COMMITS + WARM_UP;
    const [stored, storedRaw] = [await repo.count(), await raw.rowCount()];
    if (stored !== expected || storedRaw !== expected)
      throw new Error(`expected ${expected} orders from each side, found ${stored} (framework) and ${storedRaw} (raw)`);
    const rawRate = report('raw pg:   ', raws);
    const frameworkRate = report('framework:', frameworks);
    const ratio = frameworkRate / rawRate;
    console.log(`ratio:      ${ratio.toFixed(2)} (target >= ${TARGET_RATIO})${ratio >= TARGET_RATIO ? '' : '  BELOW TARGET'}`);
  } finally {
    await benchDomain.close();
    await raw.close();
    await db.drop();
  }
}

await main();
