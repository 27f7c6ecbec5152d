/**
 * What each planned order must have left behind once the flow has run, and the list of every
 * way the stored effects differ from it (empty when the run was exactly-once and in order).
 * Every handler effect is checked twice over: by its outcome (statuses, amounts, stock held)
 * and by how often it happened (each aggregate's `_version` counts its saves, the timeline
 * names each event it recorded, each stock item's stream names the orders it reserved and
 * released units for). OrderFulfilment is checked the same way: the events each instance handled,
 * each once and in its order, and the payment timeouts: one fired (and handled once) for every
 * order whose payment never came, none left for any other order.
 */
import type { PlannedOrder } from './order-load.js';
import { LAST_ONE, PLENTY, UNIT_PRICE } from './order-load.js';
import type { RaisedEvent, ShopEffects, StoredTimelineEntry } from './shop-effects.js';

type Outcome = 'paid' | 'declined' | 'timed-out' | 'out-of-stock';

interface Expected {
  status: string;
  /** The cancellation reason, or a pattern of it. */
  reason: string | RegExp | null;
  steps: string[];
  reservation: string;
  payment: string | null;
  /** The events OrderFulfilment handled, in order; its last completes it. */
  fulfilment: string[];
}

const REACHED_PAYMENT = ['OrderPlaced', 'StockReserved', 'OrderConfirmed'];

const EXPECTED: Record<Outcome, Expected> = {
  paid: {
    status: 'PAID',
    reason: null,
    steps: ['placed', 'confirmed', 'paid'],
    reservation: 'RESERVED',
    payment: 'CAPTURED',
    fulfilment: [...REACHED_PAYMENT, 'PaymentCaptured'],
  },
  declined: {
    status: 'CANCELLED',
    reason: 'payment declined: card declined by the issuer',
    steps: ['placed', 'confirmed', 'cancelled'],
    reservation: 'RELEASED',
    payment: 'DECLINED',
    fulfilment: [...REACHED_PAYMENT, 'PaymentDeclined'],
  },
  // The gateway took the charge and never answered: the payment stays PENDING.
  'timed-out': {
    status: 'CANCELLED',
    reason: 'payment timed out',
    steps: ['placed', 'confirmed', 'cancelled'],
    reservation: 'RELEASED',
    payment: 'PENDING',
    fulfilment: [...REACHED_PAYMENT, 'PaymentTimedOut'],
  },
  'out-of-stock': {
    status: 'CANCELLED',
    reason: /^out of stock \(/,
    steps: ['placed', 'cancelled'],
    reservation: 'REJECTED',
    payment: null,
    fulfilment: ['OrderPlaced', 'ReservationFailed'],
  },
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
  // The orders each SKU's stream must name: once per reservation holding it, once per release.
  const reservedFor = new Map<string, string[]>();
  const releasedFor = new Map<string, string[]>();
  const add = (lists: Map<string, string[]>, sku: string, orderId: string) => lists.set(sku, [...(lists.get(sku) ?? []), orderId]);
  for (const plan of plans) {
    const outcome: Outcome = plan.expected === 'wants-last-one' ? (lastOneWinners[0] === plan ? 'paid' : 'out-of-stock') : plan.expected;
    const want = EXPECTED[outcome];
    const id = plan.orderId.slice(0, 8);
    const order = effects.orders.get(plan.orderId);
    const total = plan.items.reduce((sum, item) => sum + item.quantity * UNIT_PRICE, 0);
    if (order?.status !== want.status) report(`order ${id} (${outcome}): status ${order?.status}, expected ${want.status}`);
    const reasonOk = want.reason instanceof RegExp ? want.reason.test(order?.reason ?? '') : (order?.reason ?? null) === want.reason;
    if (order && !reasonOk) report(`order ${id} (${outcome}): cancellation reason ${JSON.stringify(order.reason)}, expected ${String(want.reason)}`);

    // Each event once and in order (a redelivery handled twice shows as a repeated entry), the last one completing it.
    const fulfilment = effects.fulfilment.get(plan.orderId);
    const handled = (fulfilment?.handled ?? []).map((type) => type.replace(/^Shop\.|\.v\d+$/g, ''));
    if (handled.join() !== want.fulfilment.join() || !fulfilment?.completed) {
      report(
        `order ${id} (${outcome}): fulfilment handled ${handled.join(' → ') || '(nothing)'}${fulfilment?.completed ? '' : ', not completed'}, expected ${want.fulfilment.join(' → ')}`,
      );
    }
    // A fired timeout is one published row; a dropped one was deleted with the completing transition.
    const timeouts = effects.paymentTimeouts.get(plan.orderId) ?? {};
    const fired = outcome === 'timed-out' ? { published: 1 } : {};
    if (JSON.stringify(timeouts) !== JSON.stringify(fired))
      report(`order ${id} (${outcome}): payment timeouts in the outbox ${JSON.stringify(timeouts)}, expected ${JSON.stringify(fired)}`);
    if (order && order.total !== total) report(`order ${id}: total ${order.total}, expected ${total}`);

    const raised = effects.orderEvents.get(plan.orderId) ?? [];
    // Each event is one save of the order (its first save is version 0).
    if (order && order.version !== raised.length - 1) report(`order ${id}: saved ${order.version + 1} times, raised ${raised.length} events`);
    const entries = effects.timelines.get(plan.orderId) ?? [];
    const steps = entries.map((e) => e.step);
    if (steps.join() !== want.steps.join()) report(`order ${id} (${outcome}): timeline ${steps.join(' → ') || '(none)'}, expected ${want.steps.join(' → ')}`);
    const mismatch = timelineProblem(entries, raised);
    if (mismatch) report(`order ${id}: ${mismatch}`);

    const reservation = effects.reservations.get(plan.orderId);
    if (reservation?.status !== want.reservation) report(`order ${id} (${outcome}): reservation ${reservation?.status}, expected ${want.reservation}`);
    if (reservation) {
      // Made once; saved again only by its release.
      const saves = reservation.status === 'RELEASED' ? 2 : 1;
      if (reservation.version !== saves - 1) report(`order ${id}: reservation saved ${reservation.version + 1} times, expected ${saves}`);
      for (const item of reservation.status === 'REJECTED' ? [] : reservation.items) {
        add(reservedFor, item.sku, plan.orderId);
        if (reservation.status === 'RELEASED') add(releasedFor, item.sku, plan.orderId);
        if (reservation.status === 'RESERVED') reservedBySku.set(item.sku, (reservedBySku.get(item.sku) ?? 0) + item.quantity);
      }
    }

    const payment = effects.payments.get(plan.orderId);
    if ((payment?.status ?? null) !== want.payment)
      report(`order ${id} (${outcome}): payment ${payment?.status ?? 'none'}, expected ${want.payment ?? 'none'}`);
    if (payment && payment.amount !== total) report(`order ${id}: payment of ${payment.amount}, expected ${total}`);
    if (payment && payment.version !== 0) report(`order ${id}: payment saved ${payment.version + 1} times, expected once`);
  }

  // Stock held must be exactly what the RESERVED reservations hold, and each stock item's stream
  // must be its catalogue entry, its delivery, and one event per reservation and release of it,
  // naming its order: a reservation or a release applied twice (or lost) shows up here.
  for (const sku of [...skus, LAST_ONE]) {
    const stock = effects.stock.get(sku);
    const onHand = sku === LAST_ONE ? 1 : PLENTY;
    const reserved = reservedBySku.get(sku) ?? 0;
    if (stock?.onHand !== onHand || stock.reserved !== reserved) {
      report(`${sku}: ${stock?.onHand} on hand / ${stock?.reserved} reserved, expected ${onHand} / ${reserved}`);
    }
    if (!stock) continue;
    const reservations = orderListProblem(stock.reservedFor, reservedFor.get(sku) ?? []);
    if (reservations) report(`${sku}: units reserved for ${reservations}`);
    const releases = orderListProblem(stock.releasedFor, releasedFor.get(sku) ?? []);
    if (releases) report(`${sku}: units released for ${releases}`);
    const events = 2 + stock.reservedFor.length + stock.releasedFor.length;
    if (stock.version !== events - 1)
      report(`${sku}: stream at version ${stock.version}, expected ${events - 1} (catalogued, received, ${events - 2} reservations and releases)`);
    const catalogued = effects.catalogue.get(sku);
    if (catalogued?.unitsReceived !== onHand) report(`${sku}: the catalogue counts ${catalogued?.unitsReceived ?? 'no'} units received, expected ${onHand}`);
  }
  return problems;
}

/** Empty when `got` names exactly the orders of `want`, each once; else what differs. */
function orderListProblem(got: readonly string[], want: readonly string[]): string {
  const count = (ids: readonly string[]) => ids.reduce((counts, id) => counts.set(id, (counts.get(id) ?? 0) + 1), new Map<string, number>());
  const [gotCounts, wantCounts] = [count(got), count(want)];
  const twice = [...gotCounts].filter(([id, n]) => n > (wantCounts.get(id) ?? 0) && wantCounts.has(id)).length;
  const unexpected = [...gotCounts.keys()].filter((id) => !wantCounts.has(id)).length;
  const missing = [...wantCounts.keys()].filter((id) => !gotCounts.has(id)).length;
  if (!twice && !unexpected && !missing) return '';
  return `${got.length} orders (${twice} more than once, ${unexpected} unexpected, ${missing} missing), expected ${want.length}`;
}

/**
 * Every plentiful SKU was loaded far more than `threshold` events apart, so each must have a
 * snapshot that is the fold of its stream up to the snapshot's version, and is at most
 * `threshold` events behind the stream's head: each append follows a load of the head, and a
 * load that replayed `threshold` events writes a new snapshot.
 */
export function snapshotProblems(skus: readonly string[], threshold: number, effects: ShopEffects): string[] {
  const problems: string[] = [];
  for (const sku of skus) {
    const snapshot = effects.stockSnapshots.get(sku);
    const head = effects.stock.get(sku)?.version ?? -1;
    if (!snapshot) {
      problems.push(`${sku}: no snapshot of a stream at version ${head}`);
      continue;
    }
    if (snapshot.type !== 'Shop.StockItem.v1') problems.push(`${sku}: snapshot of type ${snapshot.type}`);
    if (JSON.stringify(snapshot.state) !== JSON.stringify(snapshot.replayed)) {
      problems.push(
        `${sku}: snapshot at version ${snapshot.version} holds ${JSON.stringify(snapshot.state)}, its events fold to ${JSON.stringify(snapshot.replayed)}`,
      );
    }
    if (head - snapshot.version > threshold)
      problems.push(`${sku}: snapshot at version ${snapshot.version}, ${head - snapshot.version} events behind the head (threshold ${threshold})`);
  }
  return problems;
}

/**
 * The timeline must name exactly the events the order raised, in the order it raised them: an
 * event recorded twice, left out or recorded before its predecessor shows here.
 */
function timelineProblem(entries: readonly StoredTimelineEntry[], raised: readonly RaisedEvent[]): string | null {
  const recorded = entries.map((e) => e.eventId);
  const expected = raised.map((e) => e.id);
  if (recorded.join() === expected.join()) return null;
  const name = (eventId: string) => raised.find((e) => e.id === eventId)?.type.replace(/^Shop\.|\.v\d+$/g, '') ?? `unknown event ${eventId}`;
  return `timeline records ${recorded.map(name).join(' → ') || '(nothing)'}, the order raised ${expected.map(name).join(' → ')}`;
}
