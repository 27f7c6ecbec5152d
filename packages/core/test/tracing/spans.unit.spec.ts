/**
 * The spans protean-ts starts when an OpenTelemetry SDK is registered, on the memory database and
 * the inline broker: names, parents, attributes, errors, and the W3C trace context messages carry.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configureLogging, SpanNames, tracingEnabled, type MemoryProvider } from '../../src/index.js';
import { makeShop, memoryConfig } from '../runtime/fixtures/shop-domain.js';
import { makeBank } from '@protean-ts/conformance/fixtures';
import { parentIdOf, startInMemoryTracing, traceparentOf, type InMemoryTracing } from '../support/in-memory-tracing.js';

let tracing: InMemoryTracing;
let restoreLogging: ReturnType<typeof configureLogging>;
beforeAll(() => {
  tracing = startInMemoryTracing();
});
afterAll(() => tracing.stop());
beforeEach(() => {
  tracing.reset();
  restoreLogging = configureLogging({ sink: () => {} });
});
afterEach(() => configureLogging(restoreLogging));

/** Runs `work` under a root span, as an HTTP server instrumentation would. */
function inRequest<R>(work: () => Promise<R>): Promise<{ result: R; request: { spanContext(): { traceId: string; spanId: string; traceFlags: number } } }> {
  return trace.getTracer('test').startActiveSpan('HTTP POST /orders', async (span) => {
    try {
      return { result: await work(), request: span };
    } finally {
      span.end();
    }
  });
}

describe('with an SDK registered', () => {
  let shop: ReturnType<typeof makeShop>;
  const outbox = () => (shop.domain.providers.get('default') as MemoryProvider).outbox;
  afterEach(() => shop?.domain.close());

  it('knows an SDK is registered', () => {
    expect(tracingEnabled()).toBe(true);
  });

  it('a sync command: protean.command.process under the request span, protean.uow.commit under it, events carry its context', async () => {
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig({ event_processing: 'async' }) });
    const { result: orderId, request } = await inRequest(() => shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' })) as Promise<string>);

    const command = tracing.one(SpanNames.commandProcess);
    expect(command.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(parentIdOf(command)).toBe(request.spanContext().spanId);
    expect(command.kind).toBe(SpanKind.INTERNAL);
    expect(command.attributes).toMatchObject({
      'messaging.system': 'protean',
      'messaging.operation.type': 'process',
      'protean.domain': 'Shop',
      'protean.command': 'Shop.PlaceOrder.v1',
      'protean.command.processing': 'sync',
      'messaging.destination.name': expect.stringMatching(/^shop::order:command-/),
      'messaging.message.id': expect.any(String),
    });

    const commits = tracing.named(SpanNames.uowCommit);
    expect(commits).toHaveLength(1);
    expect(parentIdOf(commits[0]!)).toBe(command.spanContext().spanId);
    expect(commits[0]!.attributes).toMatchObject({ 'protean.domain': 'Shop', 'protean.aggregate': ['Order'], 'protean.event_count': 1 });

    const [row] = await outbox().list({ limit: 10 });
    expect(row!.envelope.metadata.headers.traceparent).toBe(traceparentOf(command));
    expect(row!.envelope.metadata.headers.tracestate).toBeNull();
    expect(orderId).toBeTypeOf('string');
  });

  it('an async command: a producer span whose context the queued command carries; its handler continues the trace', async () => {
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig({ event_processing: 'async' }) });
    const { result: messageId, request } = await inRequest(
      () => shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true }) as Promise<string>,
    );
    const command = tracing.one(SpanNames.commandProcess);
    expect(command.kind).toBe(SpanKind.PRODUCER);
    expect(command.attributes).toMatchObject({ 'messaging.operation.type': 'send', 'protean.command.processing': 'async', 'messaging.message.id': messageId });
    expect(parentIdOf(command)).toBe(request.spanContext().spanId);

    const [queued] = await outbox().list({ limit: 10 });
    expect(queued!.envelope.metadata.headers.traceparent).toBe(traceparentOf(command));
    tracing.reset();

    // Delivered later, outside any span (a worker's loop): the handler's parent is the command's span.
    await shop.domain.handleMessage(queued!.envelope);
    const handler = tracing.one(SpanNames.handlerExecute);
    expect(handler.kind).toBe(SpanKind.CONSUMER);
    expect(handler.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(parentIdOf(handler)).toBe(command.spanContext().spanId);
    expect(handler.attributes).toMatchObject({
      'messaging.system': 'protean',
      'messaging.operation.type': 'process',
      'messaging.message.id': messageId,
      'protean.handler': 'OrderCommands',
      'protean.handler.kind': 'commandHandler',
      'protean.message.type': 'Shop.PlaceOrder.v1',
      'messaging.message.conversation_id': messageId,
    });
    expect(parentIdOf(tracing.one(SpanNames.uowCommit))).toBe(handler.spanContext().spanId);

    // The event the handler raised carries the handler's context: the next hop continues the trace.
    const placed = (await outbox().list({ limit: 10 })).find((row) => row.messageType === 'Shop.OrderPlaced.v1');
    expect(placed!.envelope.metadata.headers.traceparent).toBe(traceparentOf(handler));
  });

  it('a failing handler: exception recorded and status ERROR on protean.handler.execute', async () => {
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig({ event_processing: 'async' }) });
    await shop.domain.process(shop.FailingCommand.create({ customer: 'Ann' }), { asynchronous: true });
    const [queued] = await outbox().list({ limit: 10 });
    tracing.reset();
    await expect(shop.domain.handleMessage(queued!.envelope)).rejects.toThrow('handler gave up after saving');
    const handler = tracing.one(SpanNames.handlerExecute);
    expect(handler.status).toEqual({ code: SpanStatusCode.ERROR, message: 'handler gave up after saving' });
    expect(handler.events.map((event) => event.name)).toEqual(['exception']);
    expect(handler.events[0]!.attributes).toMatchObject({ 'exception.message': 'handler gave up after saving', 'exception.type': 'Error' });
  });

  it('a failing sync command: protean.command.process records the error, and no commit span claims success', async () => {
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig({ event_processing: 'async' }) });
    await expect(shop.domain.process(shop.FailingCommand.create({ customer: 'Ann' }))).rejects.toThrow('handler gave up');
    expect(tracing.one(SpanNames.commandProcess).status.code).toBe(SpanStatusCode.ERROR);
    expect(tracing.named(SpanNames.uowCommit)).toHaveLength(0);
  });

  it('sync event processing: each handler runs in protean.handler.execute, child of the span that raised the event', async () => {
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig({ event_processing: 'sync' }) });
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
    const command = tracing.one(SpanNames.commandProcess);
    const handlers = tracing.named(SpanNames.handlerExecute);
    const onPlaced = handlers.filter((span) => span.attributes['protean.message.type'] === 'Shop.OrderPlaced.v1');
    expect(onPlaced.map((span) => span.attributes['protean.handler']).sort()).toEqual(['Auditor', 'Mailer']);
    for (const span of onPlaced) {
      expect(parentIdOf(span)).toBe(command.spanContext().spanId);
      expect(span.attributes['protean.handler.kind']).toBe('eventHandler');
    }
    // The Auditor raised OrderAudited inside its span: Mailer's handling of it is the Auditor span's child.
    const auditor = onPlaced.find((span) => span.attributes['protean.handler'] === 'Auditor')!;
    const onAudited = handlers.find((span) => span.attributes['protean.message.type'] === 'Shop.OrderAudited.v1')!;
    expect(parentIdOf(onAudited)).toBe(auditor.spanContext().spanId);
    expect(new Set(handlers.map((span) => span.spanContext().traceId))).toEqual(new Set([command.spanContext().traceId]));
  });

  it('protean.broker.publish: a producer span per publish call, named after the broker provider', async () => {
    shop = makeShop();
    await shop.domain.init({ config: memoryConfig({ event_processing: 'async' }) });
    await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }));
    const [row] = await outbox().list({ limit: 10 });
    tracing.reset();
    const broker = shop.domain.brokers.get('default')!;
    await broker.publish({ stream: row!.streamName, envelope: row!.envelope });
    await broker.publishBatch([
      { stream: 'a', envelope: row!.envelope },
      { stream: 'b', envelope: row!.envelope },
    ]);
    const [single, batch] = tracing.named(SpanNames.brokerPublish);
    expect(single!.kind).toBe(SpanKind.PRODUCER);
    expect(single!.attributes).toMatchObject({
      'messaging.system': 'inline',
      'messaging.operation.type': 'send',
      'messaging.destination.name': row!.streamName,
      'messaging.message.id': row!.messageId,
      'protean.broker': 'default',
    });
    expect(batch!.attributes).toMatchObject({ 'messaging.batch.message_count': 2, 'protean.broker': 'default' });
    expect(batch!.attributes['messaging.destination.name']).toBeUndefined();
  });
});

describe('event store', () => {
  it('protean.event_store.append around each append, with the stream, count and expected version', async () => {
    const bank = makeBank();
    await bank.domain.init({ config: memoryConfig() });
    try {
      const account = bank.Account.open('Ann');
      account.deposit(10);
      await inRequest(() => bank.domain.repositoryFor(bank.Account).add(account));
      const append = tracing.one(SpanNames.eventStoreAppend);
      expect(append.attributes).toMatchObject({
        'protean.stream': `bank::account-${account.id}`,
        'protean.event_count': 2,
        'protean.event_store.expected_version': -1,
      });
      expect(parentIdOf(tracing.one(SpanNames.uowCommit))).toBeDefined();
    } finally {
      await bank.domain.close();
    }
  });
});

describe('raw subscribers', () => {
  it('runOnce with the subscriber named runs in protean.handler.execute; a bare inbox step does not', async () => {
    const shop = makeShop();
    await shop.domain.init({ config: memoryConfig({ event_processing: 'async' }) });
    try {
      await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
      const [queued] = await (shop.domain.providers.get('default') as MemoryProvider).outbox.list({ limit: 10 });
      const command = tracing.one(SpanNames.commandProcess);
      tracing.reset();
      const inbox = { subscription: 'payment-callbacks', brokerMessageId: '1-0' };
      await shop.domain.runtime.messages.runOnce(queued!.envelope, inbox, async () => {}, { name: 'PaymentCallbacks', kind: 'subscriber' });
      const span = tracing.one(SpanNames.handlerExecute);
      expect(parentIdOf(span)).toBe(command.spanContext().spanId);
      expect(span.attributes).toMatchObject({
        'protean.handler': 'PaymentCallbacks',
        'protean.handler.kind': 'subscriber',
        'messaging.consumer.group.name': 'payment-callbacks',
        'protean.handler.outcome': expect.any(String),
      });
      tracing.reset();
      await shop.domain.runtime.messages.runOnce(queued!.envelope, { ...inbox, brokerMessageId: '2-0', jumpGap: true }, async () => {});
      expect(tracing.named(SpanNames.handlerExecute)).toHaveLength(0);
    } finally {
      await shop.domain.close();
    }
  });
});
