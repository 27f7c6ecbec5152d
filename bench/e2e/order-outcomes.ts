/**
 * How the benchmark's orders ended. Every order it places must end paid: one cancelled (by its
 * payment timeout, say) or still open means the figures measure something else, so the run
 * stops and names the counts instead of printing them.
 */
import type { TempDatabase } from '../../examples/shop/test/support/temp-database.js';

/** Order status (as stored) → how many of the given orders have it; `missing` for ids never stored. */
export async function orderOutcomes(db: TempDatabase, ids: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ status: string; count: string }>(`SELECT status, count(*) AS count FROM "order" WHERE id = ANY($1) GROUP BY status`, [ids]);
  const outcomes = new Map(rows.map((row) => [row.status, Number(row.count)]));
  const stored = rows.reduce((sum, row) => sum + Number(row.count), 0);
  if (stored < ids.length) outcomes.set('missing', ids.length - stored);
  return outcomes;
}

export class OrdersNotPaidError extends Error {
  constructor(phase: string, total: number, outcomes: ReadonlyMap<string, number>) {
    const counts = [...outcomes].map(([status, count]) => `${count} ${status}`).join(', ');
    super(
      `${phase}: ${total - (outcomes.get('PAID') ?? 0)} of ${total} orders did not end paid (${counts}); ` +
        `the benchmark places only orders that must be paid, so these figures would not measure the flow. ` +
        `A cancelled order usually means the payment timeout (SHOP_PAYMENT_TIMEOUT, BENCH_PAYMENT_TIMEOUT here) ran out while it queued.`,
    );
  }
}

/** Throws OrdersNotPaidError unless every one of `ids` is PAID. */
export async function requireAllPaid(db: TempDatabase, ids: readonly string[], phase: string): Promise<void> {
  const outcomes = await orderOutcomes(db, ids);
  if ((outcomes.get('PAID') ?? 0) !== ids.length) throw new OrdersNotPaidError(phase, ids.length, outcomes);
}
