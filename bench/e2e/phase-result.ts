/**
 * The figures of one measured phase: orders committed, then followed to their last handler
 * effect (the timeline recording the order as paid), read back from the database, beside what
 * handling them cost (phase-meter.ts).
 */
import type { TempDatabase } from '../../examples/shop/test/support/temp-database.js';
import { hopLatencies, type HopLatencies } from './hop-latencies.js';
import { percentile } from './percentiles.js';
import type { PhaseCosts } from './phase-meter.js';

export interface PhaseResult {
  orders: number;
  /** Orders per second from the first commit to the last handler effect. */
  throughput: number;
  /** The order's start (its PlaceOrder committed, or sent when handled in-process) → timeline entry `paid` recorded, in ms. */
  p50: number;
  p99: number;
  /** Messages handled per second over the same window as `throughput`. */
  handledPerSecond: number;
  handledPerOrder: number;
  /** CPU of the handling processes per handled message, in µs (phase-meter.ts says which processes). */
  cpuPerHandledUs: number;
  /** Statements of the round's database per order (pg_stat_statements); NaN when it is not loaded. */
  statementsPerOrder: number;
  /** Commits of the round's database per order (pg_stat_database xact_commit, the harness's own reads taken out). */
  commitsPerOrder: number;
  /** Rows updated per order (pg_stat_database tup_updated). */
  rowUpdatesPerOrder: number;
  /** Redis commands per order (INFO commandstats, server-wide); NaN when the broker is not Redis. */
  redisPerOrder: number;
  /** Relay and hand-off latencies between the order's hops (hop-latencies.ts). */
  hops: HopLatencies;
}

/** `startedAt`: orderId → when the order started (ms since epoch). */
export async function phaseResult(db: TempDatabase, startedAt: ReadonlyMap<string, number>, costs: PhaseCosts): Promise<PhaseResult> {
  const ids = [...startedAt.keys()];
  const rows = await db.query<{ order_id: string; paid_at: string }>(
    `SELECT order_id, entries -> -1 ->> 'recordedAt' AS paid_at FROM order_timeline WHERE order_id = ANY($1) AND entries -> -1 ->> 'step' = 'paid'`,
    [ids],
  );
  if (rows.length !== ids.length)
    throw new Error(`${ids.length - rows.length} of ${ids.length} orders were not paid; the benchmark only places orders that must be`);
  const latencies = rows.map((row) => Date.parse(row.paid_at) - startedAt.get(row.order_id)!);
  const firstStart = Math.min(...startedAt.values());
  const lastEffect = Math.max(...rows.map((row) => Date.parse(row.paid_at)));
  const seconds = (lastEffect - firstStart) / 1000;
  const perOrder = (n: number) => n / ids.length;
  return {
    orders: ids.length,
    throughput: ids.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    handledPerSecond: costs.handled / seconds,
    handledPerOrder: perOrder(costs.handled),
    cpuPerHandledUs: (costs.cpuMs * 1000) / costs.handled,
    statementsPerOrder: costs.database.statements === null ? Number.NaN : perOrder(costs.database.statements),
    commitsPerOrder: perOrder(costs.database.commits),
    rowUpdatesPerOrder: perOrder(costs.database.rowsUpdated),
    redisPerOrder: costs.redisCommands === null ? Number.NaN : perOrder(costs.redisCommands),
    hops: await hopLatencies(db, firstStart),
  };
}
