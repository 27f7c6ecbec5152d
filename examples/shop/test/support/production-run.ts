/**
 * The shop in production shape, written once for both tiers: `protean-ts server --workers 3` as
 * real processes on PostgreSQL and a broker (Redis, RabbitMQ or NATS), many orders, one worker
 * killed with SIGKILL halfway through. shop.e2e.spec.ts runs it on Redis at a smoke size;
 * shop.load.spec.ts at full size on every broker (sizes: ./production-run-size.ts).
 *
 * The OrderFulfilment process manager drives each order with commands; one order in 20 pays
 * with a card the gateway never answers, so its payment timeout (SHOP_PAYMENT_TIMEOUT, set
 * below) cancels it. The shop's handlers are plain (load, change, save): they neither check
 * for redeliveries nor reorder, so this checks the framework's per-aggregate order, inbox and
 * durable timeouts through their effects, read with plain SQL: every order's timeline names
 * exactly the events the order raised, in the order it raised them; every reservation, release,
 * stock change and payment happened exactly once (counted by the aggregates' saves, and by the
 * event-sourced stock items' streams, which name each order they reserved for); each manager
 * instance handled its order's events once each, in order, and completed; every unanswered
 * order's timeout fired exactly once (one published row, one handling, cancelled "payment timed
 * out", stock given back), and no other order's timeout fired or is left waiting. Stock items
 * are loaded from snapshots that match their events, and the catalogue read model counts every
 * delivery. The killed worker must come back, `protean-ts status --wait-drained` must report the
 * running server drained, and SIGTERM must end the server with nothing pending and no error logged.
 *
 * Orders are sent in a closed loop (at most `inFlight` sent and not settled; see
 * production-run-size.ts): at full size the outbox holds thousands of unpublished rows, yet an
 * order's latency stays bounded, so the payment timeout can be short and the last unanswered
 * orders time out soon after the last order is sent. (Sent as fast as possible, the outbox grew
 * to 18,000 rows, a paid order could wait over 120 s for its payment, the timeout had to be 300 s
 * and the flow settled 650-800 s after the last order.) Progress lines every 15 s say where a run
 * is; at the end, how long paid orders took and the largest outbox backlog seen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import { domain, WAREHOUSE_DELIVERIES_STREAM } from '../../src/domain.js';
import { differences, snapshotProblems } from './expected-effects.js';
import { planOrders, plentifulSkus, seedCatalogue, sendOrders } from './order-load.js';
import { createProductionShop, type ProductionShop } from './production-shop.js';
import type { ProductionRunSize } from './production-run-size.js';
import { readEffects, settledOrders, waitUntilSettled } from './shop-effects.js';
import { paidOrderLatency, RunProgress } from './run-progress.js';
import { shopCli, startShopServer, type ShopServer } from './shop-server.js';
import { shopBrokerService, type ShopBrokerKind } from './shop-broker.js';
import { warehouseDelivery } from './warehouse-message.js';

/** Every consumer group the shop's subscriptions make, `<stream>/<group>`. */
const GROUPS = [
  'shop::order/OrderTimelineProjector',
  'shop::order:command/OrderCommands',
  'shop::stock_item/CatalogueProjector',
  'warehouse.deliveries/WarehouseDeliveries',
  'shop::order/OrderFulfilment',
  'shop::reservation/OrderFulfilment',
  'shop::payment/OrderFulfilment',
  'shop::reservation:command/ReservationCommands',
  'shop::payment:command/PaymentCommands',
];

const TAKEOVER_LOGS = ['took over messages of a consumer that stopped reporting alive', 'took over messages left pending by a stopped consumer'];

/** What the surviving workers' subscriptions counted (the killed worker's counts died with it). */
function deliveryFigures(server: ShopServer): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const line of server.logs.filter((l) => l.msg === 'subscription stopped')) {
    for (const key of ['handled', 'retried', 'duplicates', 'waits', 'late', 'gapsPassed', 'deadLettered'])
      totals[key] = (totals[key] ?? 0) + Number(line[key] ?? 0);
  }
  totals.takenOver = server.logs.filter((l) => TAKEOVER_LOGS.includes(String(l.msg))).reduce((sum, l) => sum + Number(l.count), 0);
  return totals;
}

export async function describeProductionRun(BROKER: ShopBrokerKind, size: ProductionRunSize): Promise<void> {
  const ORDERS = size.orders;
  const WORKERS = 3;
  const VICTIM = 2;
  /**
   * Longer than a paid order can take from its confirmation to its captured payment with
   * `inFlight` orders under way and a worker dying, so only unanswered orders time out.
   */
  const PAYMENT_TIMEOUT_S = size.paymentTimeoutS;
  /** A hang guard for sending: the closed loop waits for the server at every order. */
  const SEND_TIMEOUT_MS = ORDERS * 1_000 + 300_000;
  /** The flow settles after the last unanswered order's timeout; a hang guard, the stall check below ends a stuck run first. */
  const SETTLE_TIMEOUT_MS = ORDERS * 200 + PAYMENT_TIMEOUT_S * 1_000 + 600_000;

  describe.skipIf(!(await servicesUp(POSTGRES, shopBrokerService(BROKER))))(`the shop on ${WORKERS} workers (${BROKER}, ${ORDERS} orders)`, () => {
    let shop: ProductionShop;
    let server: ShopServer;
    // 40 SKUs for thousands of orders of 1–3 lines: workers often reserve the same SKU at the same time.
    const skus = plentifulSkus(40);
    const plans = planOrders(ORDERS, { skus, maxLines: 3, mix: true });

    beforeAll(async () => {
      shop = await createProductionShop(BROKER);
      await seedCatalogue(skus);
      server = await startShopServer(WORKERS, { ...shop.env, SHOP_PAYMENT_TIMEOUT: `${PAYMENT_TIMEOUT_S}s` });
    }, 240_000);

    afterAll(async () => {
      if (server) await server.stop('SIGKILL');
      await shop?.dispose();
    }, 60_000);

    it(
      `handles ${ORDERS} orders with every effect once and in order, through a killed worker`,
      async () => {
        const victimPid = server.workerPids().get(VICTIM)!;
        let killed = false;
        // The warehouse system announces a delivery, twice, on its own stream: counted once.
        const delivery = { delivery_id: 'e2e-delivery-1', sku: 'NEW-ARRIVAL', units: 500, product_name: 'New arrival', unit_price_cents: 1250 };
        for (let i = 0; i < 2; i++) {
          await shop.broker.publishRaw(WAREHOUSE_DELIVERIES_STREAM, JSON.stringify(warehouseDelivery(delivery)));
        }

        const progress = new RunProgress(`shop e2e (${BROKER}, ${ORDERS} orders)`);
        let sent = 0;
        const stopWatching = progress.watch(shop.db, 'sending', () => ({ sent }));
        try {
          await sendOrders(plans, {
            concurrency: 16,
            inFlight: { limit: size.inFlight, settled: () => settledOrders(shop.db) },
            onSent: (_order, index) => {
              sent++;
              if (index === Math.floor(ORDERS / 2) && !killed) {
                killed = true;
                process.kill(victimPid, 'SIGKILL');
              }
            },
          });
        } finally {
          await stopWatching();
        }
        expect(killed).toBe(true);

        const restarted = await server.waitForLog(
          (l) => l.msg === 'worker ready' && l.workerId === VICTIM && l.pid !== victimPid,
          120_000,
          `worker ${VICTIM} ready again`,
        );
        expect(server.logs.some((l) => l.msg === 'worker crashed; restarting' && l.workerId === VICTIM)).toBe(true);
        expect(restarted.pid).not.toBe(victimPid);

        const started = Date.now();
        // The last unanswered orders wait out their timeout with nothing else moving: allow for it.
        const stallMs = (PAYMENT_TIMEOUT_S + 60) * 1000;
        const unsettled = await waitUntilSettled(shop.db, ORDERS, SETTLE_TIMEOUT_MS, (p) => progress.note('settling', p), stallMs).then(
          () => null,
          (error: unknown) => error,
        );
        if (!unsettled) {
          const settledAfterS = ((Date.now() - started) / 1000).toFixed(1);
          const latency = await paidOrderLatency(shop.db);
          console.log(
            `shop e2e: paid orders took ${latency.order.join(' / ')} s from PlaceOrder to MarkOrderPaid and ${latency.payment.join(' / ')} s from ChargePayment (median / p99 / slowest; the payment timeout is ${PAYMENT_TIMEOUT_S} s)`,
          );
          console.log(
            `shop e2e: settled ${settledAfterS} s after the last order was sent; at most ${progress.peakUnpublished} outbox rows were waiting to be published at once`,
          );
        }
        const effects = await readEffects(shop.db);
        // Compared even when the flow did not settle: the differences tell what went wrong.
        expect(differences(plans, skus, effects)).toEqual([]);
        if (unsettled) throw unsettled;
        // What the killed worker had read but not acknowledged was taken over by the others: once its
        // heartbeat stopped, or once claim_idle_ms passed, whichever came first. (JetStream
        // redelivers it by itself after ack_wait, within the next reads; RabbitMQ puts a dead
        // connection's unacked messages back in their queues at once: no takeover to log.)
        if (BROKER === 'redis') expect(server.logs.some((l) => TAKEOVER_LOGS.includes(String(l.msg)))).toBe(true);
        // Settled means every outbox row was published; none failed or was abandoned.
        expect(Object.keys(effects.outbox)).toEqual(['published']);
        // The share of orders whose payment never came, each cancelled by exactly one timeout (checked per order above).
        const timedOut = plans.filter((p) => p.expected === 'timed-out');
        // planOrders' mix: the orders whose index is 7 modulo 20.
        expect(timedOut.length).toBe(Array.from({ length: ORDERS }, (_, i) => i).filter((i) => i % 20 === 7).length);
        expect([...effects.paymentTimeouts.values()].reduce((sum, byStatus) => sum + (byStatus.published ?? 0), 0)).toBe(timedOut.length);
        // Catalogued and received once: a stream of two events.
        expect(effects.stock.get('NEW-ARRIVAL')).toMatchObject({ onHand: 500, reserved: 0, version: 1 });
        expect(effects.catalogue.get('NEW-ARRIVAL')).toEqual({ unitsReceived: 500 });
        // Hundreds of events per SKU, yet every load replayed at most snapshot_threshold of them.
        expect(snapshotProblems(skus, domain.config.snapshot_threshold, effects)).toEqual([]);
        const behind = skus.map((sku) => effects.stock.get(sku)!.version - effects.stockSnapshots.get(sku)!.version);
        console.log(
          `shop e2e: stock streams of ${Math.min(...skus.map((sku) => effects.stock.get(sku)!.version + 1))}–${Math.max(...skus.map((sku) => effects.stock.get(sku)!.version + 1))} events, snapshots ${Math.min(...behind)}–${Math.max(...behind)} behind the head`,
        );
      },
      SEND_TIMEOUT_MS + SETTLE_TIMEOUT_MS + 300_000,
    );

    it('reports drained to an operator asking the running server, then stops on SIGTERM with exit 0, leaving nothing pending in any consumer group', async () => {
      // What an operator runs before a deploy: every outbox and consumer group read from the
      // database and the broker (on RabbitMQ through its management API, where every worker's
      // unacked messages show).
      const drained = await shopCli(['status', '--wait-drained', '--timeout', '120', '--json'], shop.env, 180_000);
      expect(drained.code, `${drained.stdout}${drained.stderr}`).toBe(0);
      expect(JSON.parse(drained.stdout)).toMatchObject({ drained: true, left: [] });
      const backlogs = JSON.parse((await shopCli(['status', '--json'], shop.env)).stdout) as {
        subscriptions: { pendingLocalOnly?: boolean; error?: string }[];
      };
      expect(backlogs.subscriptions.filter((s) => s.pendingLocalOnly || s.error)).toEqual([]);

      const exit = await server.stop('SIGTERM');

      expect(exit).toEqual({ code: 0, signal: null });
      expect(server.logs.find((l) => l.msg === 'supervisor stopped')).toMatchObject({ exitCode: 0 });
      const backlog = await shop.broker.backlog(GROUPS);
      expect(backlog.unfinished).toEqual([]);
      expect(backlog.deadLetters).toEqual({});
      expect(backlog.groups).toEqual(expect.arrayContaining(GROUPS));
      const errors = server.logs.filter((l) => l.level === 'error');
      expect(errors).toEqual([]);
      console.log(`shop e2e: ${JSON.stringify(deliveryFigures(server))}`);

      // Three commands an operator may run side by side on the stopped shop (each starts a CLI process).
      const [status, history, snapshots] = await Promise.all([
        shopCli(['outbox', 'status', '--json'], shop.env),
        shopCli(['events', 'history', 'StockItem', 'NEW-ARRIVAL'], shop.env),
        shopCli(['snapshot', 'create', '--aggregate', 'StockItem'], shop.env),
      ]);
      expect(status.code).toBe(0);
      const [outbox] = JSON.parse(status.stdout) as Record<string, number>[];
      expect(outbox).toMatchObject({ pending: 0, processing: 0, failed: 0, abandoned: 0 });
      expect(outbox!.published).toBeGreaterThan(ORDERS * 5);

      // The stock items' streams, as an operator reads them.
      expect(history.code, history.stderr).toBe(0);
      expect(history.stdout).toMatch(/ {2}version 0 {2}\S+Z {2}Shop\.ProductCatalogued\.v1 /);
      expect(history.stdout).toMatch(/ {2}version 1 {2}\S+Z {2}Shop\.StockReceived\.v2 /);
      expect(history.stdout).toContain('events history: 2 events, version 1');
      // Snapshots for every stock item at its head: the plentiful ones were mostly just behind it.
      expect(snapshots.code, snapshots.stderr).toBe(0);
      expect(snapshots.stdout).toMatch(/snapshot create: \d+ snapshots? written, \d+ already current/);
      const again = await shopCli(['snapshot', 'create', '--aggregate', 'StockItem'], shop.env);
      expect(again.stdout).toContain(`snapshot create: 0 snapshots written, ${skus.length + 2} already current`);
    }, 300_000);
  });
}
