import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogRecord } from '@protean-ts/core';
import { sampleBrokerEnvelope } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { makeShop } from './support/shop-fixture.js';

const config = {
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline' } },
  event_processing: 'async',
  server: {
    health: { port: 0 },
    stream_subscription: { blocking_timeout_ms: 50, max_retries: 2, retry_delay_seconds: 0.02, enable_dlq: true },
  },
};

describe('Engine (memory database, inline broker)', () => {
  let engine: Engine | null = null;
  let logs: ReturnType<typeof captureLogs>;
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(async () => {
    await engine?.stop();
    engine = null;
    logs.restore();
  });

  const messages = (msg: string): LogRecord[] => logs.records.filter((r) => r.msg === msg);

  it('starts an outbox processor and one subscription per handler and subscriber, and logs them by name', async () => {
    const shop = makeShop('Shop1', config);
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    expect(engine.startedNames()).toEqual([
      'outbox:outbox-processor-default-to-default',
      'subscription:OrderCommands',
      'subscription:Ledger',
      'subscription:Flaky',
      'subscription:Broken',
      'subscription:GatewayCallbacks',
    ]);
    const started = messages('engine started')[0]!;
    expect(started.subscriptions).toContain('OrderCommands <- default:shop1::order:command');
    expect(started.subscriptions).toContain('Ledger <- default:shop1::order');
    expect(started.subscriptions).toContain('GatewayCallbacks <- default:payments-gateway');
  });

  it('does not subscribe event handlers when event_processing is sync (the unit of work runs them)', async () => {
    const shop = makeShop('Shop2', { ...config, event_processing: 'sync' });
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    expect(engine.startedNames()).toEqual(['outbox:outbox-processor-default-to-default', 'subscription:OrderCommands', 'subscription:GatewayCallbacks']);
  });

  it('delivers an asynchronous command through the outbox to its handler, and the raised event to the event handlers', async () => {
    const shop = makeShop('Shop3', config);
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
    await eventually(() => shop.probe.placed.includes('Ann'));
    const orders = await shop.domain.repositoryFor(shop.Order).query({});
    expect(orders.map((o) => o.customer)).toEqual(['Ann']);
    const broker = shop.domain.brokers.get('default')!;
    await eventually(async () => (await broker.groupStatus('shop3::order', 'Ledger')).pending === 0);
    expect(await broker.groupStatus('shop3::order:command', 'OrderCommands')).toEqual({ pending: 0, lag: 0, exists: true });
  });

  it('retries a failing handler after retry_delay_seconds, and acks once it succeeds', async () => {
    const shop = makeShop('Shop4', config);
    shop.probe.flakyFailures = 2;
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Bob' }), { asynchronous: true });
    await eventually(() => shop.probe.flakyAttempts === 3);
    const broker = shop.domain.brokers.get('default')!;
    await eventually(async () => (await broker.groupStatus('shop4::order', 'Flaky')).pending === 0);
    // Flaky recovered on its third attempt, so none of the dead letters is its.
    expect((await broker.listDeadLetters('shop4::order')).filter((l) => l.group === 'Flaky')).toEqual([]);
    expect(messages('handler failed; retrying').filter((r) => r.handler === 'Flaky')).toHaveLength(2);
    expect(engine.subscriptionStatuses().find((s) => s.name === 'Flaky')).toMatchObject({ handled: 1, retried: 2, deadLettered: 0 });
  });

  it('moves a message that fails max_retries + 1 times to the dead-letter stream with the error, acks it, and keeps the others running', async () => {
    const shop = makeShop('Shop5', config);
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Cid' }), { asynchronous: true });
    const broker = shop.domain.brokers.get('default')!;
    const [letter] = await eventually(async () => {
      const letters = await broker.listDeadLetters('shop5::order');
      return letters.length ? letters : null;
    });
    expect(shop.probe.brokenAttempts).toBe(3);
    expect(letter).toMatchObject({ group: 'Broken', stream: 'shop5::order' });
    expect(letter!.error).toContain('broken handler refuses Cid');
    expect(letter!.envelope?.metadata.headers.type).toBe('Shop5.OrderPlaced.v1');
    expect(await broker.groupStatus('shop5::order', 'Broken')).toMatchObject({ pending: 0, lag: 0 });
    // The other handlers of the same stream were not held back by the broken one.
    expect(shop.probe.placed).toEqual(['Cid']);
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Dee' }), { asynchronous: true });
    await eventually(() => shop.probe.placed.includes('Dee'));
    expect(messages('message moved to the dead-letter stream')[0]).toMatchObject({ handler: 'Broken', subscription: 'Broken' });
  });

  it('leaves a failing message pending (not acked) when enable_dlq is false', async () => {
    const shop = makeShop('Shop6', {
      ...config,
      server: { ...config.server, stream_subscription: { ...config.server.stream_subscription, enable_dlq: false } },
    });
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Eve' }), { asynchronous: true });
    await eventually(() => engine!.subscriptionStatuses().find((s) => s.name === 'Broken')!.leftPending === 1);
    const broker = shop.domain.brokers.get('default')!;
    expect(await broker.groupStatus('shop6::order', 'Broken')).toMatchObject({ pending: 1 });
    expect(await broker.listDeadLetters('shop6::order')).toEqual([]);
  });

  it('removes the consumers stopped workers left in its group: at start, and a crashed one once its message is taken over', async () => {
    const shop = makeShop('Shop14', { ...config, brokers: { default: { provider: 'inline', claim_idle_ms: 500 } } });
    await shop.domain.init();
    const broker = shop.domain.brokers.get('default')!;
    const stream = 'payments-gateway';
    await broker.ensureGroup(stream, 'GatewayCallbacks');
    await broker.publishBatch([0, 1].map((i) => ({ stream, envelope: sampleBrokerEnvelope(stream, i) })));
    // A worker that stopped cleanly long ago, and one that has just crashed holding a message.
    const [done] = await broker.read(stream, 'GatewayCallbacks', 'stopped-worker', { count: 1, blockMs: 0 });
    await broker.ack(stream, 'GatewayCallbacks', [done!.id]);
    await new Promise((r) => setTimeout(r, 600));
    await broker.read(stream, 'GatewayCallbacks', 'crashed-worker', { count: 1, blockMs: 0 });

    engine = new Engine(shop.domain, { health: false, reclaimIntervalMs: 50 });
    await engine.start();
    const removed = () => messages('removed stopped consumers from the group').filter((r) => r.subscription === 'GatewayCallbacks');
    await eventually(() => removed().length === 2);
    expect(removed().map((r) => r.consumers)).toEqual([['stopped-worker'], ['crashed-worker']]);
    await eventually(() => shop.probe.received.length === 1);
  });

  it('with blocking_timeout_ms = 0, pauses tick_interval after an empty read and still delivers', async () => {
    const shop = makeShop('Shop13', {
      ...config,
      server: { ...config.server, tick_interval: 0.05, stream_subscription: { ...config.server.stream_subscription, blocking_timeout_ms: 0 } },
    });
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    await new Promise((r) => setTimeout(r, 100));
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Gus' }), { asynchronous: true });
    await eventually(() => shop.probe.placed.includes('Gus'));
  });

  it('hands raw messages of a subscriber stream to the subscriber', async () => {
    const shop = makeShop('Shop7', config);
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    const envelope = {
      data: { paymentId: 'p-1', status: 'captured' },
      metadata: {
        headers: { id: 'gw-1', time: new Date().toISOString(), type: 'Gateway.PaymentCaptured.v1', stream: 'payments-gateway' },
        envelope: { specversion: '1.0' as const },
        domain: { fqn: 'Gateway.PaymentCaptured', kind: 'EVENT' as const, streamCategory: 'payments-gateway', version: 1 },
        extensions: {},
      },
    };
    await shop.domain.brokers.get('default')!.publish({ stream: 'payments-gateway', envelope });
    await eventually(() => shop.probe.received.length === 1);
    expect(shop.probe.received[0]).toMatchObject({ data: { paymentId: 'p-1', status: 'captured' } });
  });

  it('in test mode, reports drained once the outbox and every group are empty', async () => {
    const shop = makeShop('Shop8', config);
    engine = new Engine(shop.domain, { health: false, drain: { intervalMs: 20, quietChecks: 3 } });
    await engine.start();
    for (const customer of ['A', 'B', 'C']) await shop.domain.process(shop.PlaceOrder.create({ customer }), { asynchronous: true });
    const result = await engine.waitUntilDrained(10_000);
    expect(result.drained).toBe(true);
    // Drained means every handler saw every message: nothing was still in flight.
    expect(shop.probe.placed.sort()).toEqual(['A', 'B', 'C']);
    expect(shop.probe.brokenAttempts).toBe(9);
  });

  it('in test mode, names what is still busy when the timeout passes', async () => {
    const shop = makeShop('Shop9', {
      ...config,
      server: { ...config.server, stream_subscription: { ...config.server.stream_subscription, retry_delay_seconds: 5 } },
    });
    engine = new Engine(shop.domain, { health: false, drain: { intervalMs: 20, quietChecks: 3 } });
    await engine.start();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Slow' }), { asynchronous: true });
    const result = await engine.waitUntilDrained(600);
    expect(result.drained).toBe(false);
    if (!result.drained) expect(result.busy.join('\n')).toMatch(/subscription (Flaky|Broken) \(stream "shop9::order"\): 1 unacked/);
  });

  it('stops gracefully: finishes the handler in flight and acks it, then closes connections', async () => {
    const shop = makeShop('Shop10', {
      ...config,
      server: { ...config.server, stream_subscription: { ...config.server.stream_subscription, retry_delay_seconds: 30 } },
    });
    engine = new Engine(shop.domain, { health: false });
    await engine.start();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Fay' }), { asynchronous: true });
    await eventually(() => shop.probe.brokenAttempts === 1);
    const started = Date.now();
    await engine.stop();
    // The 30 s retry wait of Broken was cut short instead of holding the shutdown.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(shop.probe.placed).toEqual(['Fay']);
    expect(messages('engine stopped')).toHaveLength(1);
    expect(shop.domain.runtime.isReady).toBe(false);
  });

  it('a stop that arrives while it is starting waits for start, then leaves nothing running', async () => {
    const shop = makeShop('Shop12', config);
    engine = new Engine(shop.domain, { health: false });
    const starting = engine.start();
    await engine.stop();
    await starting;
    expect(engine.subscriptionStatuses().every((s) => s.state === 'stopped')).toBe(true);
    expect(shop.domain.runtime.isReady).toBe(false);
    expect(messages('engine stopped')).toHaveLength(1);
  });

  it('serves health: ready with every database, broker and subscription named', async () => {
    const shop = makeShop('Shop11', config);
    engine = new Engine(shop.domain);
    await engine.start();
    const base = `http://127.0.0.1:${engine.boundHealthPort}`;
    const body = await eventually(async () => {
      const res = await fetch(`${base}/healthz`);
      return res.status === 200 ? ((await res.json()) as { checks: { name: string; ok: boolean }[] }) : null;
    });
    expect(body.checks.map((c) => c.name)).toEqual([
      'database:default',
      'broker:default',
      'outbox:outbox-processor-default-to-default',
      'subscription:OrderCommands',
      'subscription:Ledger',
      'subscription:Flaky',
      'subscription:Broken',
      'subscription:GatewayCallbacks',
    ]);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/livez`)).status).toBe(200);
  });
});
