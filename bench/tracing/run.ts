/**
 * Tracing benchmark: the cost of protean-ts's OpenTelemetry instrumentation on the command →
 * commit path (`domain.process`, sync: handler, unit of work, outbox row with the trace headers),
 * on the memory database, so the framework's own CPU is all there is to measure (the worst case
 * for a relative cost), or on a PostgreSQL database of its own (BENCH_DATABASE=postgresql). Rounds alternate the three modes of tracing-modes.ts; each mode's median is
 * compared with the no-SDK median of the same run. It also times the check every instrumented
 * call makes first (`tracingEnabled()`), which is all a process without an SDK pays.
 * Run: npm run bench:tracing   (env: BENCH_DATABASE memory | postgresql, BENCH_DATABASE_URL (server),
 * BENCH_COMMANDS per round and mode (3000; 1000 on PostgreSQL), BENCH_ROUNDS (15; 9 on PostgreSQL))
 */
import { configureLogging, tracingEnabled } from '@protean-ts/core';
import { createTemporaryDatabase, LOCAL_POSTGRES_URI } from '@protean-ts/conformance/fixtures';
import { Order, PlaceOrder, tracingDomain } from './tracing-bench-domain.js';
import { installMode, MODES, type TracingMode } from './tracing-modes.js';

const ON_POSTGRES = process.env.BENCH_DATABASE === 'postgresql';
if (process.env.BENCH_DATABASE && !ON_POSTGRES && process.env.BENCH_DATABASE !== 'memory') {
  throw new Error(`BENCH_DATABASE must be "memory" or "postgresql", got "${process.env.BENCH_DATABASE}"`);
}
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? (ON_POSTGRES ? 1_000 : 3_000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (ON_POSTGRES ? 9 : 15));
/** Instrumented calls on this path per command: the command span, its stamp, the event raised, the commit. */
const CHECKS_PER_COMMAND = 4;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface RoundResult {
  /** Commands per second of wall time. */
  rate: number;
  /** This process's CPU time (user + system) per command, µs: less disturbed by other load. */
  cpuUs: number;
}

async function runCommands(): Promise<RoundResult> {
  const cpu = process.cpuUsage();
  const begin = performance.now();
  for (let i = 0; i < COMMANDS; i += 1) await tracingDomain.process(PlaceOrder.create({ customer: 'Ann' }));
  const seconds = (performance.now() - begin) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: COMMANDS / seconds, cpuUs: (used.user + used.system) / COMMANDS };
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
  const db = ON_POSTGRES ? await createTemporaryDatabase({ label: 'pt_bench_tracing', serverUri: process.env.BENCH_DATABASE_URL ?? LOCAL_POSTGRES_URI }) : null;
  console.log(`bench/tracing: ${db ? `PostgreSQL database ${db.name}` : 'memory database'}, ${ROUNDS} rounds of ${COMMANDS} commands per mode`);
  if (db) {
    await tracingDomain.init({ config: { databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } } } });
    await tracingDomain.providers.get('default')!.setupSchema([tracingDomain.aggregateSchemaFor(Order)], { outbox: true });
  } else {
    await tracingDomain.init();
  }
  try {
    await measureModes();
  } finally {
    await tracingDomain.close();
    await db?.drop();
  }
}

async function measureModes(): Promise<void> {
  const outbox = tracingDomain.providers.get('default')!.outbox;

  // Warm-up: JIT, and every mode once.
  for (const mode of MODES) {
    const installed = installMode(mode);
    await runCommands();
    await installed.uninstall();
  }

  const results = new Map<TracingMode, RoundResult[]>(MODES.map((mode) => [mode, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    // Rotate the order so no mode always runs first (or right after the garbage of another).
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
    const line: string[] = [];
    for (const mode of order) {
      const installed = installMode(mode);
      const result = await runCommands();
      // The batch processor's export (and the CPU it costs) belongs to the SDK's round.
      const used = process.cpuUsage();
      const exported = await installed.uninstall();
      const flushed = process.cpuUsage(used);
      result.cpuUs += (flushed.user + flushed.system) / COMMANDS;
      if (mode === 'SDK' && exported < COMMANDS * 2) throw new Error(`the SDK exported ${exported} spans for ${COMMANDS} commands`);
      results.get(mode)!.push(result);
      line.push(`${mode}: ${Math.round(result.rate)}/s ${result.cpuUs.toFixed(1)} µs CPU`);
    }
    console.log(`round ${round}: ${line.join(', ')}`);
  }
  const [row] = await outbox.list({ limit: 1 });
  if (!row) throw new Error('no outbox row written');

  const rateOf = (mode: TracingMode) => median(results.get(mode)!.map((r) => r.rate));
  const cpuOf = (mode: TracingMode) => median(results.get(mode)!.map((r) => r.cpuUs));
  const perCommandUs = cpuOf('no SDK');
  const ns = checkCostNs();
  console.log(
    `\n${'mode'.padEnd(10)} ${'commands/s'.padStart(12)} ${'rate vs no SDK'.padStart(15)} ${'CPU µs/command'.padStart(15)} ${'CPU vs no SDK'.padStart(14)}   (medians of ${ROUNDS} rounds of ${COMMANDS})`,
  );
  for (const mode of MODES) {
    console.log(
      `${mode.padEnd(10)} ${Math.round(rateOf(mode)).toLocaleString('en-US').padStart(12)} ${(rateOf(mode) / rateOf('no SDK')).toFixed(2).padStart(15)}` +
        ` ${cpuOf(mode).toFixed(1).padStart(15)} ${(cpuOf(mode) / perCommandUs).toFixed(2).padStart(14)}`,
    );
  }
  console.log(
    `\ntracingEnabled() with no SDK: ${ns.toFixed(1)} ns a call; ${CHECKS_PER_COMMAND} calls a command = ${((ns * CHECKS_PER_COMMAND) / 1000).toFixed(3)} µs of ${perCommandUs.toFixed(1)} µs (${((ns * CHECKS_PER_COMMAND) / 10 / perCommandUs).toFixed(3)} %)`,
  );
}

await main();
