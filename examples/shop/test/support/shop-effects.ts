/**
 * Reads what the handlers did straight from the shop's tables, with plain SQL: the checks do
 * not trust the framework they check. Table and column names are those `protean-ts db setup`
 * creates (snake_case; value objects flattened into `<field>_<subfield>` columns; `_version`
 * counts an aggregate's saves from 0). The events each order raised, in the order it raised
 * them, come from the outbox, where they were written with the order. Stock items are
 * event-sourced: their state is folded here from their events in protean_events, and their
 * snapshots in protean_snapshots are checked against the same fold. What OrderFulfilment handled
 * comes from its transition streams (`shop::order_fulfilment-<order id>`, one entry per handled
 * event), and the payment timeouts it scheduled from the outbox rows that carried them.
 */
import type { TempDatabase } from './temp-database.js';
import type { TimelineStep } from '../../src/domain.js';

export interface StoredTimelineEntry {
  step: TimelineStep;
  eventId: string;
  occurredAt: string;
  recordedAt: string;
}

/** An event an order raised, as committed with it. */
export interface RaisedEvent {
  id: string;
  type: string;
}

export interface ShopEffects {
  orders: Map<string, { status: string; reason: string | null; total: number; version: number }>;
  /** Per order, the events it raised, in the order it raised them. */
  orderEvents: Map<string, RaisedEvent[]>;
  timelines: Map<string, StoredTimelineEntry[]>;
  reservations: Map<string, { status: string; items: { sku: string; quantity: number }[]; version: number }>;
  payments: Map<string, { status: string; amount: number; version: number }>;
  /** Per SKU, folded from its stream: `version` is its last event's position. */
  stock: Map<string, StockHistory>;
  /** Per SKU, its latest snapshot and the state its stream's events fold to at that version. */
  stockSnapshots: Map<string, StockSnapshot>;
  /** The catalogue read model, per SKU. */
  catalogue: Map<string, { unitsReceived: number }>;
  /** Per order, the events its OrderFulfilment handled (types, in order) and whether it completed. */
  fulfilment: Map<string, { handled: string[]; completed: boolean }>;
  /**
   * Per order, the PaymentTimedOut rows left in the outbox: one per timeout that fired (a timeout
   * dropped because the process completed first is deleted), by status.
   */
  paymentTimeouts: Map<string, Record<string, number>>;
  outbox: Record<string, number>;
}

export interface StockHistory {
  onHand: number;
  reserved: number;
  version: number;
  /** The orders units were reserved for (once per UnitsReserved event), sorted. */
  reservedFor: string[];
  /** The orders units were released for, sorted. */
  releasedFor: string[];
}

export interface StockSnapshot {
  version: number;
  type: string;
  state: { onHand: number; reserved: number };
  replayed: { onHand: number; reserved: number };
}

const STOCK_SKU = `substring(stream_name FROM '^shop::stock_item-(.*)$')`;
/** The units an event adds to on hand / to reserved. */
const ON_HAND_CHANGE = `CASE WHEN type LIKE 'Shop.StockReceived.%' THEN (data ->> 'quantity')::bigint ELSE 0 END`;
const RESERVED_CHANGE = `CASE WHEN type LIKE 'Shop.UnitsReserved.%' THEN (data ->> 'quantity')::bigint WHEN type LIKE 'Shop.UnitsReleased.%' THEN -(data ->> 'quantity')::bigint ELSE 0 END`;

export async function readEffects(db: TempDatabase): Promise<ShopEffects> {
  const [orders, orderEvents, timelines, reservations, payments, stock, snapshots, catalogue, fulfilment, paymentTimeouts, outbox] = await Promise.all([
    db.query<{ id: string; status: string; cancellation_reason: string | null; total_amount: string; _version: number }>(
      'SELECT id, status, cancellation_reason, total_amount, _version FROM "order"',
    ),
    // One row per event (an event goes to one broker here); within an order, `sequence` grows in raising order.
    db.query<{ order_id: string; ids: string[]; types: string[] }>(`
      SELECT substring(partition_key FROM '^shop::order-(.*)$') AS order_id, array_agg(message_id ORDER BY sequence) AS ids, array_agg(message_type ORDER BY sequence) AS types
      FROM protean_outbox WHERE stream_name = 'shop::order' GROUP BY partition_key`),
    db.query<{ order_id: string; entries: StoredTimelineEntry[] }>('SELECT order_id, entries FROM order_timeline'),
    db.query<{ order_id: string; status: string; items: { sku: string; quantity: number }[]; _version: number }>(
      'SELECT order_id, status, items, _version FROM reservation',
    ),
    db.query<{ order_id: string; status: string; amount_amount: string; _version: number }>('SELECT order_id, status, amount_amount, _version FROM payment'),
    db.query<{ sku: string; on_hand: string; reserved: string; version: string; reserved_for: string[] | null; released_for: string[] | null }>(`
      SELECT ${STOCK_SKU} AS sku, sum(${ON_HAND_CHANGE}) AS on_hand, sum(${RESERVED_CHANGE}) AS reserved, max(position) AS version,
        array_agg(data ->> 'orderId' ORDER BY data ->> 'orderId') FILTER (WHERE type LIKE 'Shop.UnitsReserved.%') AS reserved_for,
        array_agg(data ->> 'orderId' ORDER BY data ->> 'orderId') FILTER (WHERE type LIKE 'Shop.UnitsReleased.%') AS released_for
      FROM protean_events WHERE category = 'shop::stock_item' GROUP BY stream_name`),
    db.query<{ sku: string; version: string; type: string; on_hand: string; reserved: string; replayed_on_hand: string; replayed_reserved: string }>(`
      SELECT ${STOCK_SKU} AS sku, s.version, s.type, s.data ->> 'onHand' AS on_hand, s.data ->> 'reserved' AS reserved,
        (SELECT sum(${ON_HAND_CHANGE}) FROM protean_events e WHERE e.stream_name = s.stream_name AND e.position <= s.version) AS replayed_on_hand,
        (SELECT sum(${RESERVED_CHANGE}) FROM protean_events e WHERE e.stream_name = s.stream_name AND e.position <= s.version) AS replayed_reserved
      FROM protean_snapshots s WHERE stream_name LIKE 'shop::stock_item-%'`),
    db.query<{ sku: string; units_received: string }>('SELECT sku, units_received FROM catalogue_entry'),
    db.query<{ order_id: string; handled: string[]; completed: boolean }>(`
      SELECT substring(stream_name FROM '^shop::order_fulfilment-(.*)$') AS order_id, array_agg(data -> 'event' ->> 'type' ORDER BY position) AS handled,
        bool_or((data ->> 'completed')::boolean) AS completed
      FROM protean_events WHERE category = 'shop::order_fulfilment' GROUP BY stream_name`),
    db.query<{ order_id: string; status: string; count: string }>(`
      SELECT data ->> 'orderId' AS order_id, status, count(*) FROM protean_outbox WHERE message_type = 'Shop.PaymentTimedOut.v1' GROUP BY 1, 2`),
    db.query<{ status: string; count: string }>('SELECT status, count(*) FROM protean_outbox GROUP BY status'),
  ]);
  return {
    orders: new Map(orders.map((o) => [o.id, { status: o.status, reason: o.cancellation_reason, total: Number(o.total_amount), version: Number(o._version) }])),
    orderEvents: new Map(orderEvents.map((o) => [o.order_id, o.ids.map((id, i) => ({ id, type: o.types[i]! }))])),
    timelines: new Map(timelines.map((t) => [t.order_id, t.entries])),
    reservations: new Map(reservations.map((r) => [r.order_id, { status: r.status, items: r.items, version: Number(r._version) }])),
    payments: new Map(payments.map((p) => [p.order_id, { status: p.status, amount: Number(p.amount_amount), version: Number(p._version) }])),
    stock: new Map(
      stock.map((s) => [
        s.sku,
        {
          onHand: Number(s.on_hand),
          reserved: Number(s.reserved),
          version: Number(s.version),
          reservedFor: s.reserved_for ?? [],
          releasedFor: s.released_for ?? [],
        },
      ]),
    ),
    stockSnapshots: new Map(
      snapshots.map((s) => [
        s.sku,
        {
          version: Number(s.version),
          type: s.type,
          state: { onHand: Number(s.on_hand), reserved: Number(s.reserved) },
          replayed: { onHand: Number(s.replayed_on_hand), reserved: Number(s.replayed_reserved) },
        },
      ]),
    ),
    catalogue: new Map(catalogue.map((c) => [c.sku, { unitsReceived: Number(c.units_received) }])),
    fulfilment: new Map(fulfilment.map((f) => [f.order_id, { handled: f.handled, completed: f.completed }])),
    paymentTimeouts: paymentTimeouts.reduce(
      (byOrder, row) => byOrder.set(row.order_id, { ...byOrder.get(row.order_id), [row.status]: Number(row.count) }),
      new Map<string, Record<string, number>>(),
    ),
    outbox: Object.fromEntries(outbox.map((row) => [row.status, Number(row.count)])),
  };
}

export interface Progress {
  settledOrders: number;
  settledTimelines: number;
  /** Cancelled orders whose stock is still held: their release has not run yet. */
  pendingReleases: number;
  unpublished: number;
  /** Units delivered (StockReceived events) that the catalogue read model has not counted yet. */
  uncataloguedUnits: number;
}

/** Orders paid or cancelled so far. */
export async function settledOrders(db: TempDatabase): Promise<number> {
  const [row] = await db.query<{ settled: string }>(`SELECT count(*) AS settled FROM "order" WHERE status IN ('PAID', 'CANCELLED')`);
  return Number(row!.settled);
}

/** How far the flow has come, in one round trip. */
export async function readProgress(db: TempDatabase): Promise<Progress> {
  const [row] = await db.query<Record<keyof Progress, string>>(`
    SELECT
      (SELECT count(*) FROM "order" WHERE status IN ('PAID', 'CANCELLED')) AS "settledOrders",
      (SELECT count(*) FROM order_timeline WHERE entries -> -1 ->> 'step' IN ('paid', 'cancelled')) AS "settledTimelines",
      (SELECT count(*) FROM reservation r JOIN "order" o ON o.id = r.order_id WHERE r.status = 'RESERVED' AND o.status = 'CANCELLED') AS "pendingReleases",
      (SELECT count(*) FROM protean_outbox WHERE status <> 'published') AS "unpublished",
      (SELECT coalesce(sum((data ->> 'quantity')::bigint), 0) FROM protean_events WHERE category = 'shop::stock_item' AND type LIKE 'Shop.StockReceived.%')
        - (SELECT coalesce(sum(units_received), 0) FROM catalogue_entry) AS "uncataloguedUnits"`);
  return {
    settledOrders: Number(row!.settledOrders),
    settledTimelines: Number(row!.settledTimelines),
    pendingReleases: Number(row!.pendingReleases),
    unpublished: Number(row!.unpublished),
    uncataloguedUnits: Number(row!.uncataloguedUnits),
  };
}

/**
 * Polls until `orders` orders have run their whole course and the catalogue has counted every
 * delivery, or throws with the last progress seen: after `timeoutMs`, or once nothing moved for
 * `stallMs` (a lost or dead-lettered step never comes; a worker's death holds messages up for
 * seconds, not a minute).
 */
export async function waitUntilSettled(
  db: TempDatabase,
  orders: number,
  timeoutMs: number,
  onProgress?: (p: Progress) => void,
  stallMs = 60_000,
): Promise<Progress> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let movedAt = Date.now();
  for (;;) {
    const progress = await readProgress(db);
    onProgress?.(progress);
    const settled =
      progress.settledOrders === orders &&
      progress.settledTimelines === orders &&
      progress.pendingReleases === 0 &&
      progress.unpublished === 0 &&
      progress.uncataloguedUnits === 0;
    if (settled) return progress;
    if (JSON.stringify(progress) !== last) [last, movedAt] = [JSON.stringify(progress), Date.now()];
    if (Date.now() - movedAt > stallMs) throw new Error(`not settled, nothing moved for ${stallMs} ms: ${last} of ${orders} orders`);
    if (Date.now() > deadline) throw new Error(`not settled after ${timeoutMs} ms: ${JSON.stringify(progress)} of ${orders} orders`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
