/**
 * Another system's CloudEvents consumed into the domain: a `CloudEventSubscriber` on a Redis
 * broker with `message_format = "cloudevents"`, the events written by plain ioredis in
 * structured and binary mode, handled as the domain's typed event; a malformed CloudEvent, bad
 * data and an undeclared type each end in the dead letters with a reason naming what is wrong.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { BaseAggregate, BaseEvent, CloudEventSubscriber, Domain, field, onCloudEvent, type CloudEventContext } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { Engine } from '../src/engine/engine.js';
import { eventually } from './support/eventually.js';
import { createTempDatabase, REDIS_URI, uniquePrefix, type TempDatabase } from './support/real-services.js';

const up = await servicesUp(POSTGRES, REDIS);

function makeBilling(db: TempDatabase, prefix: string) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protean-ce-'));
  const domain = new Domain('Billing', {
    root,
    config: {
      databases: { default: { provider: 'postgresql', database_uri: db.uri, pool_size: 4 } },
      brokers: {
        default: { provider: 'redis', uri: REDIS_URI, stream_prefix: `${prefix}main:` },
        gateway: { provider: 'redis', uri: REDIS_URI, stream_prefix: `${prefix}gw:`, message_format: 'cloudevents' },
      },
      server: { health: { port: 0 }, stream_subscription: { blocking_timeout_ms: 100, max_retries: 1, retry_delay_seconds: 0.05, enable_dlq: true } },
    },
  });
  const handled: { event: PaymentCaptured; context: CloudEventContext }[] = [];

  @domain.aggregate()
  class Invoice extends BaseAggregate {
    @field.string({ required: true }) customer!: string;
  }

  @domain.event({ partOf: Invoice })
  class PaymentCaptured extends BaseEvent {
    @field.string({ required: true }) paymentId!: string;
    @field.integer({ required: true, min: 1 }) amountCents!: number;
  }

  @domain.subscriber({ stream: 'payments', broker: 'gateway' })
  class GatewayPayments extends CloudEventSubscriber {
    @onCloudEvent('com.gateway.payment.captured', PaymentCaptured)
    captured(event: PaymentCaptured, context: CloudEventContext): void {
      handled.push({ event, context });
    }
  }

  return { domain, handled, PaymentCaptured, GatewayPayments };
}

describe.skipIf(!up)('consuming CloudEvents from another system into a subscriber (Redis)', () => {
  let db: TempDatabase;
  let engine: Engine;
  let billing: ReturnType<typeof makeBilling>;
  const prefix = uniquePrefix('ce-in');
  const redis = new Redis(REDIS_URI);
  const stream = `${prefix}gw:payments`;

  beforeAll(async () => {
    db = await createTempDatabase();
    billing = makeBilling(db, prefix);
    await billing.domain.init();
    for (const provider of billing.domain.providers.values())
      await provider.setupSchema(billing.domain.runtime.infrastructure.aggregateSchemas(), { outbox: true });
    engine = new Engine(billing.domain, { health: false, reclaimIntervalMs: 200 });
    await engine.start();
  });
  afterEach(() => {
    billing.handled.splice(0);
  });
  afterAll(async () => {
    await engine?.stop();
    await billing?.domain.close();
    redis.disconnect();
    await db?.drop();
  });

  const structured = (event: Record<string, unknown>) =>
    redis.xadd(stream, '*', 'content-type', 'application/cloudevents+json', 'cloudevent', JSON.stringify(event));
  const lettersOf = async () => billing.domain.brokers.get('gateway')!.listDeadLetters('payments', { count: 100 });

  it('structured mode: the handler gets the typed event and the CloudEvent context', async () => {
    await structured({
      specversion: '1.0',
      id: 'pay-1',
      source: 'https://gateway.example.com',
      type: 'com.gateway.payment.captured',
      time: '2026-11-30T10:00:00Z',
      subject: 'invoice-7',
      datacontenttype: 'application/json',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      data: { paymentId: 'p-1', amountCents: 1250 },
    });
    const [{ event, context }] = await eventually(() => (billing.handled.length ? billing.handled : null));
    expect(event).toBeInstanceOf(billing.PaymentCaptured);
    expect([event.paymentId, event.amountCents]).toEqual(['p-1', 1250]);
    expect(event._metadata?.headers).toMatchObject({
      id: 'pay-1',
      type: 'com.gateway.payment.captured',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(context).toMatchObject({
      id: 'pay-1',
      type: 'com.gateway.payment.captured',
      source: 'https://gateway.example.com',
      subject: 'invoice-7',
      time: '2026-11-30T10:00:00Z',
    });
  });

  it('binary mode: ce_ fields and a JSON data field become the same typed event', async () => {
    await redis.xadd(
      stream,
      '*',
      ...['ce_specversion', '1.0', 'ce_id', 'pay-2', 'ce_source', '/gateway', 'ce_type', 'com.gateway.payment.captured', 'ce_merchant', 'm-9'],
      ...['content-type', 'application/json', 'data', JSON.stringify({ paymentId: 'p-2', amountCents: 990 })],
    );
    const [{ event, context }] = await eventually(() => (billing.handled.length ? billing.handled : null));
    expect([event.paymentId, event.amountCents]).toEqual(['p-2', 990]);
    expect(context.source).toBe('/gateway');
    expect(context.attributes.merchant).toBe('m-9');
  });

  it('a malformed CloudEvent, invalid data and an undeclared type go to the dead letters, each with a reason naming what is wrong', async () => {
    const base = { specversion: '1.0', source: '/gateway', type: 'com.gateway.payment.captured', datacontenttype: 'application/json' };
    await structured({ ...base, id: 'bad-1', source: undefined, data: { paymentId: 'p-3', amountCents: 5 } });
    await structured({ ...base, id: 'bad-2', data: { paymentId: 'p-4', amountCents: 0 } });
    await structured({ ...base, id: 'bad-3', type: 'com.gateway.payment.refunded', data: { paymentId: 'p-5', amountCents: 5 } });
    await structured({ ...base, id: 'good-4', data: { paymentId: 'p-6', amountCents: 5 } });
    await eventually(() => billing.handled.length === 1);
    const letters = await eventually(async () => {
      const found = await lettersOf();
      return found.length >= 3 ? found : null;
    });
    const errors = letters.map((letter) => letter.error);
    expect(errors.some((e) => e.includes('its CloudEvent is malformed: it has no "source" attribute'))).toBe(true);
    expect(errors.some((e) => /amountCents/.test(e))).toBe(true);
    expect(errors.some((e) => e.includes('com.gateway.payment.refunded') && e.includes("@onCloudEvent('com.gateway.payment.refunded'"))).toBe(true);
    expect(billing.handled.map((h) => h.event.paymentId)).toEqual(['p-6']);
  });

  it('the dead letter of a malformed CloudEvent says what a CloudEvents broker reads, not the protean-ts envelope', async () => {
    await structured({ specversion: '1.0', id: 'bad-advice', type: 'com.gateway.payment.captured', data: { paymentId: 'p-7', amountCents: 5 } });
    const letter = await eventually(
      async () => (await lettersOf()).find((found) => found.error.includes('bad-advice') || found.rawFields?.join(' ').includes('bad-advice')) ?? null,
    );
    expect(letter.error).toContain('protean-ts reads only CloudEvents 1.0 entries on this broker');
    expect(letter.error).not.toContain('"envelope" field');
  });
});
