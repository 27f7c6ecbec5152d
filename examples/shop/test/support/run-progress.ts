/**
 * Progress lines for the shop's long production-shape run: where it is every 15 s while orders
 * are sent and while the flow settles, and the largest outbox backlog seen, which shows that the
 * closed loop still leaves the relays thousands of rows behind (the load the run is for).
 */
import { readProgress, type Progress } from './shop-effects.js';
import type { TempDatabase } from './temp-database.js';

const REPORT_EVERY_MS = 15_000;

export class RunProgress {
  /** The most outbox rows seen not yet published at once. */
  peakUnpublished = 0;
  private reportedAt = 0;
  private readonly started = Date.now();

  constructor(private readonly label: string) {}

  /** Notes a reading; logs it if the last line is 15 s old (or `force`). */
  note(phase: string, progress: Progress, extra: Record<string, number> = {}, force = false): void {
    this.peakUnpublished = Math.max(this.peakUnpublished, progress.unpublished);
    if (!force && Date.now() - this.reportedAt < REPORT_EVERY_MS) return;
    this.reportedAt = Date.now();
    const elapsed = Math.round((Date.now() - this.started) / 1000);
    console.log(`${this.label} ${phase} +${elapsed}s: ${JSON.stringify({ ...extra, ...progress, peakUnpublished: this.peakUnpublished })}`);
  }

  /** Reads the progress every few seconds until the returned function is called. */
  watch(db: TempDatabase, phase: string, extra: () => Record<string, number>): () => Promise<void> {
    let stopped = false;
    let wake = () => {};
    const loop = (async () => {
      while (!stopped) {
        this.note(phase, await readProgress(db), extra());
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 3_000);
        });
      }
    })();
    return async () => {
      stopped = true;
      wake();
      await loop;
    };
  }
}

export interface PaidOrderLatency {
  /** Seconds from PlaceOrder to MarkOrderPaid, median / 99th percentile / slowest paid order. */
  order: [number, number, number];
  /**
   * Seconds from ChargePayment (sent with the timeout) to MarkOrderPaid (sent on PaymentCaptured,
   * dropping it), median / 99th percentile / slowest: the payment timeout must outlast this.
   */
  payment: [number, number, number];
}

/** How long paid orders took, from the outbox rows' commit times. */
export async function paidOrderLatency(db: TempDatabase): Promise<PaidOrderLatency> {
  const [row] = await db.query<{ order: number[]; payment: number[] }>(`
    WITH paid AS (
      SELECT extract(epoch FROM p.created_at - placed.created_at) AS order_s, extract(epoch FROM p.created_at - charge.created_at) AS payment_s
      FROM protean_outbox p
      JOIN protean_outbox placed ON placed.message_type LIKE 'Shop.PlaceOrder.%' AND placed.data ->> 'orderId' = p.data ->> 'orderId'
      JOIN protean_outbox charge ON charge.message_type LIKE 'Shop.ChargePayment.%' AND charge.data ->> 'orderId' = p.data ->> 'orderId'
      WHERE p.message_type LIKE 'Shop.MarkOrderPaid.%')
    SELECT percentile_disc(ARRAY[0.5, 0.99, 1]) WITHIN GROUP (ORDER BY order_s) AS "order",
      percentile_disc(ARRAY[0.5, 0.99, 1]) WITHIN GROUP (ORDER BY payment_s) AS payment
    FROM paid`);
  const seconds = (values: number[] | null) => (values ?? [0, 0, 0]).map((v) => Math.round(Number(v) * 10) / 10) as [number, number, number];
  return { order: seconds(row!.order), payment: seconds(row!.payment) };
}
