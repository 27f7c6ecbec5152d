/**
 * Domain-model benchmark: operations per second of create (with children and a value object),
 * toPlain, fromPlain, a validated assignment and raise, each the median of five rounds.
 * Run: npx tsx --conditions=@protean-ts/source bench/model/run.ts
 */
import { Address, modelDomain, Order, OrderLine } from './model-bench-domain.js';

const ROUNDS = 5;
const N = 20_000;

function opsPerSecond(one: (i: number) => void): number {
  const results: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const begin = performance.now();
    for (let i = 0; i < N; i += 1) one(i);
    results.push(N / ((performance.now() - begin) / 1000));
  }
  results.sort((a, b) => a - b);
  return results[Math.floor(ROUNDS / 2)]!;
}

const lines = () => [0, 1, 2].map((i) => ({ sku: `SKU-${i}`, quantity: i + 1 }));
const newOrder = () => Order.create({ customer: 'Ann', total: 12.5, shippingAddress: { street: 'Main 1', city: 'Town' }, lines: lines() });

modelDomain.checkModel(); // the model alone: no infrastructure is needed
const sample = newOrder();
const plain = sample.toPlain();
const results: Record<string, number> = {
  'create (3 lines + value object)': opsPerSecond(() => void newOrder()),
  'create from instances': opsPerSecond(
    () =>
      void Order.create({ customer: 'Ann', shippingAddress: Address.create({ street: 'a', city: 'b' }), lines: [OrderLine.create({ sku: 'A', quantity: 1 })] }),
  ),
  toPlain: opsPerSecond(() => void sample.toPlain()),
  fromPlain: opsPerSecond(() => void Order.fromPlain(plain, { version: 3 })),
  'assign a field (validated + invariants)': opsPerSecond((i) => {
    sample.total = i % 100;
  }),
  'place + raise': opsPerSecond(() => {
    const o = Order.fromPlain(plain, { version: 0 });
    o.place();
  }),
};
for (const [name, ops] of Object.entries(results)) console.log(JSON.stringify({ bench: 'model', name, opsPerSecond: Math.round(ops) }));
