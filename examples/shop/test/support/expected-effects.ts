/**
 * What each planned order must have left behind once the flow has run, and the list of every
 * way the stored effects differ from it (empty when the run was exactly-once and in order).
 */
import type { PlannedOrder } from './order-load.js';
import { LAST_ONE, PLENTY, UNIT_PRICE } from './order-load.js';
import type { ShopEffects, StoredTimelineEntry } from './shop-effects.js';

type Outcome = 'paid' | 'declined' | 'out-of-stock';

const EXPECTED: Record<Outcome, { status: string; steps: string[]; reservation: string; payment: string | null }> = {
  paid: { status: 'PAID', steps: ['placed', 'confirmed', 'paid'], reservation: 'RESERVED', payment: 'CAPTURED' },
  declined: { status: 'CANCELLED', steps: ['placed', 'confirmed', 'cancelled'], reservation: 'RELEASED', payment: 'DECLINED' },
  'out-of-stock': { status: 'CANCELLED', steps: ['placed', 'cancelled'], reservation: 'REJECTED', payment: null },
};

export function differences(plans: readonly PlannedOrder[], skus: readonly string[], effects: ShopEffects): string[] {
  const problems: string[] = [];
  const report = (what: string) => {
    if (problems.length < 50) problems.push(what);
  };

  const lastOneWinners = plans.filter((p) => p.expected === 'wants-last-one' && effects.orders.get(p.orderId)?.status === 'PAID');
  if (plans.some((p) => p.expected === 'wants-last-one') && lastOneWinners.length !== 1) {
    report(`${lastOneWinners.length} orders got the single ${LAST_ONE}; exactly one must`);
  }
  if (effects.orders.size !== plans.length) report(`${effects.orders.size} orders stored, ${plans.length} placed`);

  const reservedBySku = new Map<string, number>();
  for (const plan of plans) {
    const outcome: Outcome = plan.expected === 'wants-last-one' ? (lastOneWinners[0] === plan ? 'paid' : 'out-of-stock') : plan.expected;
    const want = EXPECTED[outcome];
    const id = plan.orderId.slice(0, 8);
    const order = effects.orders.get(plan.orderId);
    const total = plan.items.reduce((sum, item) => sum + item.quantity * UNIT_PRICE, 0);
    if (order?.status !== want.status) report(`order ${id} (${outcome}): status ${order?.status}, expected ${want.status}`);
    if (order && order.total !== total) report(`order ${id}: total ${order.total}, expected ${total}`);

    const timeline = effects.timelines.get(plan.orderId) ?? { entries: [], waiting: [] };
    const steps = timeline.entries.map((e) => e.step);
    if (steps.join() !== want.steps.join()) report(`order ${id} (${outcome}): timeline ${steps.join(' → ') || '(none)'}, expected ${want.steps.join(' → ')}`);
    if (timeline.waiting.length) report(`order ${id}: ${timeline.waiting.map((e) => e.step).join(', ')} still waiting for an earlier step`);
    const disorder = orderProblem(timeline.entries);
    if (disorder) report(`order ${id}: ${disorder}`);

    const reservation = effects.reservations.get(plan.orderId);
    if (reservation?.status !== want.reservation) report(`order ${id} (${outcome}): reservation ${reservation?.status}, expected ${want.reservation}`);
    if (reservation?.status === 'RESERVED') {
      for (const item of reservation.items) reservedBySku.set(item.sku, (reservedBySku.get(item.sku) ?? 0) + item.quantity);
    }

    const payment = effects.payments.get(plan.orderId);
    if ((payment?.status ?? null) !== want.payment) report(`order ${id} (${outcome}): payment ${payment?.status ?? 'none'}, expected ${want.payment ?? 'none'}`);
    if (payment && payment.amount !== total) report(`order ${id}: payment of ${payment.amount}, expected ${total}`);
  }

  // Stock held must be exactly what the RESERVED reservations hold: a reservation or a release
  // applied twice (or lost) shows up here.
  for (const sku of [...skus, LAST_ONE]) {
    const stock = effects.stock.get(sku);
    const onHand = sku === LAST_ONE ? 1 : PLENTY;
    const reserved = reservedBySku.get(sku) ?? 0;
    if (stock?.onHand !== onHand || stock.reserved !== reserved) {
      report(`${sku}: ${stock?.onHand} on hand / ${stock?.reserved} reserved, expected ${onHand} / ${reserved}`);
    }
  }
  return problems;
}

/** Entries must sit at stream positions 0, 1, 2, … and have been recorded in that order. */
function orderProblem(entries: readonly StoredTimelineEntry[]): string | null {
  for (const [i, entry] of entries.entries()) {
    if (entry.position !== i) return `timeline entry ${i} has stream position ${entry.position}`;
    const previous = entries[i - 1];
    if (previous && Date.parse(entry.recordedAt) < Date.parse(previous.recordedAt)) return `timeline entry ${i} was recorded before entry ${i - 1}`;
    if (previous && Date.parse(entry.occurredAt) < Date.parse(previous.occurredAt)) return `timeline entry ${i} happened before entry ${i - 1}`;
  }
  return null;
}
