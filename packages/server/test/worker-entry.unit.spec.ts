import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getLogger } from '@protean-ts/core';
import { Engine } from '../src/engine/engine.js';
import { runWorker } from '../src/supervisor/worker-entry.js';
import { captureLogs } from './support/log-capture.js';
import { makeShop } from './support/shop-fixture.js';

const config = (retryDelaySeconds: number) => ({
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline' } },
  event_processing: 'async',
  server: { stream_subscription: { blocking_timeout_ms: 50, max_retries: 1, retry_delay_seconds: retryDelaySeconds } },
});

describe('runWorker (one Engine as a process)', () => {
  let logs: ReturnType<typeof captureLogs>;
  const forced: number[] = [];
  beforeEach(() => {
    logs = captureLogs();
    forced.length = 0;
  });
  afterEach(() => logs.restore());

  const run = (engine: Engine, testModeTimeoutMs: number) =>
    runWorker({
      engine,
      workerId: null,
      graceMs: 5000,
      testMode: true,
      testModeTimeoutMs,
      logger: getLogger('server'),
      forceExit: (code) => forced.push(code),
    });

  it('in test mode resolves 0 once every message was handled, after stopping the engine', async () => {
    const shop = makeShop('Worker1', config(0.01));
    await shop.domain.init();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
    const engine = new Engine(shop.domain, { health: false, drain: { intervalMs: 20, quietChecks: 3 } });
    expect(await run(engine, 10_000)).toBe(0);
    expect(shop.probe.placed).toEqual(['Ann']);
    expect(shop.domain.runtime.isReady).toBe(false);
    expect(forced).toEqual([]);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });

  it('in test mode resolves 1 and names what is still busy when the timeout passes', async () => {
    const shop = makeShop('Worker2', config(30));
    await shop.domain.init();
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Bob' }), { asynchronous: true });
    const engine = new Engine(shop.domain, { health: false, drain: { intervalMs: 20, quietChecks: 3 } });
    const started = Date.now();
    expect(await run(engine, 800)).toBe(1);
    // The 30 s retry wait of the failing handlers did not hold the shutdown.
    expect(Date.now() - started).toBeLessThan(5000);
    const timeout = logs.records.find((r) => r.msg === 'test mode: still busy when the timeout passed')!;
    expect(String(timeout.busy)).toMatch(/subscription Broken \(stream "worker2::order"\): 1 unacked/);
  });

  it('resolves 1 when the engine cannot start', async () => {
    const shop = makeShop('Worker3', {
      ...config(1),
      databases: { default: { provider: 'memory' } },
      brokers: { default: { provider: 'inline' } },
      outbox: { broker: 'missing' },
    });
    const engine = new Engine(shop.domain, { health: false });
    expect(await run(engine, 1000)).toBe(1);
    expect(logs.records.find((r) => r.msg === 'engine failed to start')).toBeDefined();
  });
});
