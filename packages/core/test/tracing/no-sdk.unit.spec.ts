/**
 * Without a registered OpenTelemetry SDK protean-ts starts no spans and captures no trace
 * context; a trace context that arrived with a handled message (from a traced producer elsewhere)
 * is carried on unchanged, so a traced consumer further down still joins that trace.
 */
import { trace } from '@opentelemetry/api';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { configureLogging, tracingEnabled, type MemoryProvider, type MessageEnvelope } from '../../src/index.js';
import { envelopeChecksum } from '../../src/messages/index.js';
import { makeShop, memoryConfig } from '../runtime/fixtures/shop-domain.js';

let shop: ReturnType<typeof makeShop>;
let restoreLogging: ReturnType<typeof configureLogging>;
const outbox = () => (shop.domain.providers.get('default') as MemoryProvider).outbox;
beforeEach(async () => {
  restoreLogging = configureLogging({ sink: () => {} });
  shop = makeShop();
  await shop.domain.init({ config: memoryConfig({ event_processing: 'async' }) });
});
afterEach(async () => {
  await shop.domain.close();
  configureLogging(restoreLogging);
});

it('reports tracing off, and messages get no trace headers', async () => {
  expect(tracingEnabled()).toBe(false);
  // A span started through the bare API is a no-op: nothing to capture either.
  await trace.getTracer('test').startActiveSpan('HTTP POST /orders', async (span) => {
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
    span.end();
  });
  const [row] = await outbox().list({ limit: 10 });
  expect(row!.envelope.metadata.headers).toMatchObject({ traceparent: null, tracestate: null });
});

it("carries the handled message's trace context on to the messages its handler raises", async () => {
  await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
  const [queued] = await outbox().list({ limit: 10 });
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const traced: MessageEnvelope = {
    ...queued!.envelope,
    metadata: { ...queued!.envelope.metadata, headers: { ...queued!.envelope.metadata.headers, traceparent, tracestate: 'vendor=1' } },
  };
  traced.metadata.envelope = { ...traced.metadata.envelope, checksum: envelopeChecksum(traced) };
  await shop.domain.handleMessage(traced);
  const placed = (await outbox().list({ limit: 10 })).find((row) => row.messageType === 'Shop.OrderPlaced.v1');
  expect(placed!.envelope.metadata.headers).toMatchObject({ traceparent, tracestate: 'vendor=1' });
});
