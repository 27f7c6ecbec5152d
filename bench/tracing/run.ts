/**
 * Tracing benchmark: the cost of protean-ts's OpenTelemetry instrumentation on the command →
 * commit path (`domain.process`, sync: handler, unit of work, outbox row with the trace headers),
 * memory database, so the framework's own CPU is all there is to measure (the worst case for a
 * relative cost). Rounds alternate the three modes of tracing-modes.ts; each mode's median is
 * compared with the no-SDK median of the same run. It also times the check every instrumented
 * call makes first (`tracingEnabled()`), which is all a process without an SDK pays.
 * Run: npm run bench:tracing   (env: BENCH_COMMANDS per round, default 20000; BENCH_ROUNDS, default 7)
 */
import { configureLogging, tracingEnabled, type MemoryProvider } from '@protean-ts/core';
import { PlaceOrder, tracingDomain } from './tracing-bench-domain.js';
import { installMode, MODES, type TracingMode } from './tracing-modes.js';

const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** Instrumented calls on this path per command: process, commit, two message stamps, and slack. */
const CHECKS_PER_COMMAND = 4;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function commandsPerSecond(): Promise<number> {
  const begin = performance.now();
  for (let i = 0; i < COMMANDS; i += 1) await tracingDomain.process(PlaceOrder.create({ customer: 'Ann' }));
  return COMMANDS / ((performance.now() - begin) / 1000);
}

/** Nanoseconds per `tracingEnabled()` call with nothing registered. */
function checkCostNs(): number {
  const calls = 5_000_000;
  let enabled = 0;
  const begin = performance.now();
  for (let i = 0; i < calls; i += 1) if (tracingEnabled()) enabled += 1;
  const ns = ((performance.now() - begin) * 1e6) / calls;
  if (enabled !== 0) throw new Error('tracing reported on with nothing registered');
  return ns;
}

async function main(): Promise<void> {
  configureLogging({ level: 'error' });
  await tracingDomain.init({ config: { databases: { default: { provider: 'memory' } }, brokers: { default: { provider: 'inline' } }, event_processing: 'async', enable_outbox: true } });
  const outbox = (tracingDomain.providers.get('default') as MemoryProvider).outbox;

  // Warm-up: JIT, and every mode once.
  for (const mode of MODES) {
    const installed = installMode(mode);
    await commandsPerSecond();
    await installed.uninstall();
  }

  const rates = new Map<TracingMode, number[]>(MODES.map((mode) => [mode, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    // Rotate the order so no mode always runs first (or right after the garbage of another).
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
    const line: string[] = [];
    for (const mode of order) {
      const installed = installMode(mode);
      const rate = await commandsPerSecond();
      const exported = await installed.uninstall();
      if (mode === 'SDK' && exported < COMMANDS * 2) throw new Error(`the SDK exported ${exported} spans for ${COMMANDS} commands`);
      rates.get(mode)!.push(rate);
      line.push(`${mode}: ${Math.round(rate)}/s`);
    }
    console.log(`round ${round}: ${line.join(', ')}`);
  }
  const [row] = await outbox.list({ limit: 1 });
  if (!row) throw new Error('no outbox row written');
  await tracingDomain.close();

  const baseline = median(rates.get('no SDK')!);
  const perCommandUs = 1e6 / baseline;
  const ns = checkCostNs();
  console.log(`\n${'mode'.padEnd(10)} ${'commands/s (median)'.padStart(20)} ${'µs/command'.padStart(12)} ${'vs no SDK'.padStart(10)}`);
  for (const mode of MODES) {
    const rate = median(rates.get(mode)!);
    console.log(`${mode.padEnd(10)} ${Math.round(rate).toLocaleString('en-US').padStart(20)} ${(1e6 / rate).toFixed(1).padStart(12)} ${(rate / baseline).toFixed(2).padStart(10)}`);
  }
  console.log(`\ntracingEnabled() with no SDK: ${ns.toFixed(1)} ns a call; ${CHECKS_PER_COMMAND} calls a command = ${((ns * CHECKS_PER_COMMAND) / 1000).toFixed(3)} µs of ${perCommandUs.toFixed(1)} µs (${((ns * CHECKS_PER_COMMAND) / 10 / perCommandUs).toFixed(3)} %)`);
}

await main();
