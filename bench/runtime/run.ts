/**
 * Runtime benchmark (embedded default: memory database, inline broker): envelope serialization,
 * unit-of-work commits that write one outbox row each, and draining the memory outbox (claim +
 * markPublished) with and without a large retained backlog of published rows. Medians of five rounds.
 * Run: npx tsx --conditions=@protean-ts/source bench/runtime/run.ts   (env: BENCH_N)
 */
import { configureLogging, MemoryProvider, serializeMessage, type NewOutboxRow } from '@protean-ts/core';
import { Order, OrderLine, runtimeDomain } from './runtime-bench-domain.js';

const ROUNDS = 5;
const N = Number(process.env.BENCH_N ?? 20_000);

async function rate(total: number, run: () => Promise<void>): Promise<number> {
  const results: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const begin = performance.now();
    await run();
    results.push(total / ((performance.now() - begin) / 1000));
  }
  results.sort((a, b) => a - b);
  return results[Math.floor(ROUNDS / 2)]!;
}

function newOrder(): Order {
  return Order.create({ customer: 'Ann', total: 12.5, lines: [OrderLine.create({ sku: 'SKU-1', quantity: 2 })] });
}

function rowFor(i: number, broker: string): NewOutboxRow {
  const order = newOrder();
  order.place();
  const envelope = serializeMessage(order.pendingEvents()[0]!);
  return {
    messageId: envelope.metadata.headers.id,
    streamName: 'bench::order',
    partitionKey: `bench::order-${i}`,
    messageType: envelope.metadata.headers.type,
    envelope,
    targetBroker: broker,
    maxRetries: 5,
  };
}

async function drain(store: MemoryProvider['outbox'], broker: string): Promise<number> {
  let published = 0;
  for (;;) {
    const rows = await store.claimBatch({ workerId: 'bench', targetBroker: broker, limit: 100, lockMs: 30_000 });
    if (rows.length === 0) return published;
    published += await store.markPublished(
      'bench',
      rows.map((r) => r.id),
    );
  }
}

async function outboxDrainRate(retainedPublished: number): Promise<number> {
  const provider = new MemoryProvider('bench');
  if (retainedPublished > 0) {
    const tx = await provider.begin();
    await provider.outbox.append(
      tx,
      Array.from({ length: retainedPublished }, (_, i) => rowFor(i, 'old')),
    );
    await tx.commit();
    await drain(provider.outbox, 'old');
  }
  let round = 0;
  return rate(N, async () => {
    const broker = `b${round++}`;
    const tx = await provider.begin();
    await provider.outbox.append(
      tx,
      Array.from({ length: N }, (_, i) => rowFor(i, broker)),
    );
    await tx.commit();
    const published = await drain(provider.outbox, broker);
    if (published !== N) throw new Error(`drained ${published} of ${N}`);
  });
}

async function main(): Promise<void> {
  configureLogging({ level: 'error' });
  await runtimeDomain.init({ config: { databases: { default: { provider: 'memory' } }, event_processing: 'async', enable_outbox: true } });
  const event = (() => {
    const order = newOrder();
    order.place();
    return order.pendingEvents()[0]!;
  })();

  const results: [string, number][] = [];
  results.push([
    'serializeMessage (ops/s)',
    await rate(N, async () => {
      for (let i = 0; i < N; i += 1) serializeMessage(event);
    }),
  ]);
  results.push([
    'uow commit, 1 aggregate + 1 outbox row (commits/s)',
    await rate(N, async () => {
      for (let i = 0; i < N; i += 1) {
        await runtimeDomain.uow(async () => {
          const order = newOrder();
          order.place();
          await runtimeDomain.repositoryFor(Order).add(order);
        });
      }
    }),
  ]);
  results.push(['memory outbox append + drain (rows/s)', await outboxDrainRate(0)]);
  results.push(['  … with 100k published rows retained (rows/s)', await outboxDrainRate(100_000)]);
  await runtimeDomain.close();

  for (const [label, value] of results) console.log(`${label.padEnd(56)} ${Math.round(value).toLocaleString('en-US').padStart(12)}`);
}

await main();
