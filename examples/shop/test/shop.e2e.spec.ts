/**
 * The shop in production shape: `protean-ts server --workers 3` as real processes on
 * PostgreSQL and Redis (SHOP_BROKER=nats: NATS JetStream, `npm run test:e2e:nats`; SHOP_BROKER=rabbitmq:
 * RabbitMQ, `npm run test:e2e:rabbitmq`), 5,000 orders, one worker killed with SIGKILL halfway through.
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
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/core/testing';
import { domain, WAREHOUSE_DELIVERIES_STREAM } from '../src/domain.js';
import { differences, snapshotProblems } from './support/expected-effects.js';
import { planOrders, plentifulSkus, seedCatalogue, sendOrders } from './support/order-load.js';
import { createProductionShop, type ProductionShop } from './support/production-shop.js';
import { readEffects, waitUntilSettled } from './support/shop-effects.js';
import { shopCli, startShopServer, type ShopServer } from './support/shop-server.js';
import { shopBrokerKind, shopBrokerService } from './support/shop-broker.js';
import { warehouseDelivery } from './support/warehouse-message.js';

const BROKER = shopBrokerKind();
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

const ORDERS = 5_000;
const WORKERS = 3;
const VICTIM = 2;
/**
 * Longer than a paid order can take from its confirmation to its captured payment with 5,000
 * orders queued and a worker dying, so only unanswered orders time out; the wait for the flow to
 * settle allows for it. Each hop of the payment waits behind the outbox's backlog (up to 18,000
 * rows here): 120 s was enough in runs that settled within about 300 s of the last order, and
 * too little in two runs of a slower day (settling took 380–480 s, and 50 paid orders timed out).
 */
const PAYMENT_TIMEOUT_S = 300;
/**
 * The flow settles after the last unanswered order's timeout, which is queued like the rest: 657,
 * 684 and 791 s after the last order on Redis, RabbitMQ and NATS in one CI run.
 */
const SETTLE_TIMEOUT_MS = 1_200_000;

describe.skipIf(!(await servicesUp(POSTGRES, shopBrokerService(BROKER))))(`the shop on ${WORKERS} workers (${BROKER})`, () => {
  let shop: ProductionShop;
  let server: ShopServer;
  // 40 SKUs for 5,000 orders of 1–3 lines: workers often reserve the same SKU at the same time.
  const skus = plentifulSkus(40);
  const plans = planOrders(ORDERS, { skus, maxLines: 3, mix: true });

  beforeAll(async () => {
    shop = await createProductionShop();
    await seedCatalogue(skus);
    server = await startShopServer(WORKERS, { ...shop.env, SHOP_PAYMENT_TIMEOUT: `${PAYMENT_TIMEOUT_S}s` });
  }, 240_000);

  afterAll(async () => {
    if (server) await server.stop('SIGKILL');
    await shop?.dispose();
  }, 60_000);

  it(
    'handles 5,000 orders with every effect once and in order, through a killed worker',
    async () => {
      const victimPid = server.workerPids().get(VICTIM)!;
      let killed = false;
      // The warehouse system announces a delivery, twice, on its own stream: counted once.
      const delivery = { delivery_id: 'e2e-delivery-1', sku: 'NEW-ARRIVAL', units: 500, product_name: 'New arrival', unit_price_cents: 1250 };
      for (let i = 0; i < 2; i++) {
        await shop.broker.publishRaw(WAREHOUSE_DELIVERIES_STREAM, JSON.stringify(warehouseDelivery(delivery)));
      }

      await sendOrders(plans, {
        concurrency: 16,
        onSent: (_order, index) => {
          if (index === ORDERS / 2 && !killed) {
            killed = true;
            process.kill(victimPid, 'SIGKILL');
          }
        },
      });
      expect(killed).toBe(true);

      const restarted = await server.waitForLog(
        (l) => l.msg === 'worker ready' && l.workerId === VICTIM && l.pid !== victimPid,
        120_000,
        `worker ${VICTIM} ready again`,
      );
      expect(server.logs.some((l) => l.msg === 'worker crashed; restarting' && l.workerId === VICTIM)).toBe(true);
      expect(restarted.pid).not.toBe(victimPid);

      const started = Date.now();
      let reported = 0;
      const progressLine = (progress: object) => {
        // A line every 15 s, so a slow run shows where it is.
        if (Date.now() - reported < 15_000) return;
        reported = Date.now();
        console.log(`shop e2e: ${JSON.stringify(progress)}`);
      };
      // The last unanswered orders wait out their timeout with nothing else moving: allow for it.
      const stallMs = (PAYMENT_TIMEOUT_S + 60) * 1000;
      const unsettled = await waitUntilSettled(shop.db, ORDERS, SETTLE_TIMEOUT_MS, progressLine, stallMs).then(
        () => null,
        (error: unknown) => error,
      );
      if (!unsettled) console.log(`shop e2e: settled ${((Date.now() - started) / 1000).toFixed(1)} s after the last order was sent`);
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
      expect(timedOut.length).toBe(ORDERS / 20);
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
    SETTLE_TIMEOUT_MS + 300_000,
  );

  it('reports drained to an operator asking the running server, then stops on SIGTERM with exit 0, leaving nothing pending in any consumer group', async () => {
    // What an operator runs before a deploy: every outbox and consumer group read from the
    // database and the broker (on RabbitMQ through its management API, where every worker's
    // unacked messages show).
    const drained = await shopCli(['status', '--wait-drained', '--timeout', '120', '--json'], shop.env, 180_000);
    expect(drained.code, `${drained.stdout}${drained.stderr}`).toBe(0);
    expect(JSON.parse(drained.stdout)).toMatchObject({ drained: true, left: [] });
    const backlogs = JSON.parse((await shopCli(['status', '--json'], shop.env)).stdout) as { subscriptions: { pendingLocalOnly?: boolean; error?: string }[] };
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

    const status = await shopCli(['outbox', 'status', '--json'], shop.env);
    expect(status.code).toBe(0);
    const [outbox] = JSON.parse(status.stdout) as Record<string, number>[];
    expect(outbox).toMatchObject({ pending: 0, processing: 0, failed: 0, abandoned: 0 });
    expect(outbox!.published).toBeGreaterThan(ORDERS * 5);

    // The stock items' streams, as an operator reads them.
    const history = await shopCli(['events', 'history', 'StockItem', 'NEW-ARRIVAL'], shop.env);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(/ {2}version 0 {2}\S+Z {2}Shop\.ProductCatalogued\.v1 /);
    expect(history.stdout).toMatch(/ {2}version 1 {2}\S+Z {2}Shop\.StockReceived\.v2 /);
    expect(history.stdout).toContain('events history: 2 events, version 1');
    // Snapshots for every stock item at its head: the plentiful ones were mostly just behind it.
    const snapshots = await shopCli(['snapshot', 'create', '--aggregate', 'StockItem'], shop.env);
    expect(snapshots.code, snapshots.stderr).toBe(0);
    expect(snapshots.stdout).toMatch(/snapshot create: \d+ snapshots? written, \d+ already current/);
    const again = await shopCli(['snapshot', 'create', '--aggregate', 'StockItem'], shop.env);
    expect(again.stdout).toContain(`snapshot create: 0 snapshots written, ${skus.length + 2} already current`);
  }, 300_000);
});
