/**
 * A process manager run by the server (memory database, inline broker): one subscription per
 * category it follows, events delivered through the outbox and the inbox, and a durable timeout
 * published by the outbox processor once due, handled once, or cancelled by completion.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processManagerStream, type MemoryProvider } from '@protean-ts/core';
import { Engine } from '../src/engine/engine.js';
import { planSubscriptions } from '../src/subscriptions/subscription-plan.js';
import { eventually } from './support/eventually.js';
import { captureLogs } from './support/log-capture.js';
import { makeFulfilment, type Fulfil } from '../../core/test/support/fulfilment-domain.js';

const config = {
  databases: { default: { provider: 'memory' } },
  brokers: { default: { provider: 'inline' } },
  event_processing: 'async',
  outbox: { tick_interval: 0.05 },
  server: { health: { port: 0 }, stream_subscription: { blocking_timeout_ms: 50 } },
};

async function started(f: Fulfil, orderId: string): Promise<boolean> {
  const record = f.domain.registry.requireRecord(f.Fulfilment, 'processManager');
  return (await f.domain.providers.get('default')!.eventStore.streamVersion(processManagerStream(record, orderId))) >= 0;
}

describe('process managers in the server', () => {
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

  function fulfilment(name: string, timeoutAfter: (customer: string | undefined) => string): Fulfil {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-pm-'));
    return makeFulfilment({ name, timeoutAfter, domainOptions: { root, config } });
  }

  it('plans one stream subscription per category the manager follows, under its subscription name', async () => {
    const f = fulfilment('Pm1', () => '1h');
    await f.domain.init();
    try {
      expect(
        planSubscriptions(f.domain)
          .filter((entry) => entry.role === 'processManager')
          .map((entry) => [entry.group, entry.stream]),
      ).toEqual([
        ['Fulfilment', 'pm1::order'],
        ['Fulfilment', 'pm1::payment'],
      ]);
    } finally {
      await f.domain.close();
    }
  });

  it('refuses to plan a process manager while the outbox is off, naming it and the key', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-pm-'));
    const f = makeFulfilment({ name: 'Pm3', domainOptions: { root, config: { ...config, enable_outbox: false } } });
    await f.domain.init();
    try {
      expect(() => planSubscriptions(f.domain)).toThrow(/Fulfilment is a process manager: .* the outbox, which is off \(enable_outbox = false\)/);
    } finally {
      await f.domain.close();
    }
  });

  it('delivers events to the manager, fires a due timeout once, and drops the timeout of a process that completed first', async () => {
    const f = fulfilment('Pm2', (customer) => (customer === 'late' ? '300ms' : '1h'));
    engine = new Engine(f.domain, { health: false, drain: { intervalMs: 20, quietChecks: 3 } });
    await engine.start();
    const outbox = () => (f.domain.providers.get('default') as MemoryProvider).outbox;
    const place = (customer: string) =>
      f.domain.uow(async () => {
        const order = f.Order.create({ customer });
        order.place();
        await f.domain.repositoryFor(f.Order).add(order);
        return order.id;
      });
    const late = await place('late');
    const paid = await place('paid');
    // Started means committed: the transition is in the event store (the call is recorded before the commit).
    await eventually(() => started(f, paid));
    await f.domain.uow(async () => {
      const payment = f.Payment.create({ forOrder: paid });
      payment.receive();
      await f.domain.repositoryFor(f.Payment).add(payment);
    });
    await eventually(() => f.calls.includes(`timed out ${late}`) && f.calls.includes(`paid ${paid}`), 10_000);
    expect((await engine.waitUntilDrained(10_000)).drained).toBe(true);
    // One name, two subscriptions: the health checks tell them apart by stream.
    const checks = (await engine.healthReport()).checks.filter((c) => c.kind === 'subscription').map((c) => c.name);
    expect(checks.filter((name) => name.startsWith('subscription:Fulfilment'))).toEqual([
      'subscription:Fulfilment@pm2::order',
      'subscription:Fulfilment@pm2::payment',
    ]);
    expect(f.calls.filter((call) => call === `timed out ${late}`)).toHaveLength(1);
    const rows = await outbox().list({ limit: 1000 });
    const timeouts = rows.filter((row) => row.messageType === 'Pm2.PaymentTimedOut.v1');
    // The paid order's timeout was deleted when its process completed; the late one's was published once due.
    expect(timeouts.map((row) => [row.envelope.data.orderId, row.status])).toEqual([[late, 'published']]);
    expect(timeouts[0]!.publishedAt!.getTime()).toBeGreaterThanOrEqual(timeouts[0]!.deliverAt!.getTime());
    expect(rows.filter((row) => row.messageType === 'Pm2.CancelOrder.v1').map((row) => row.envelope.data.orderId)).toEqual([late]);
    expect(rows.filter((row) => row.messageType === 'Pm2.ConfirmOrder.v1').map((row) => row.envelope.data.orderId)).toEqual([paid]);
  });
});
