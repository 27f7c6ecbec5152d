/**
 * `protean.outbox.publish`: one span per claimed batch, a trace of its own linked to the trace
 * context each message carries (stored with it in the outbox row), with the broker's
 * `protean.broker.publish` as its child and failures recorded on it.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { InlineBroker, MemoryProvider, SpanNames, type NewOutboxRow } from '@protean-ts/core';
import { RowFactory } from '@protean-ts/conformance';
import { parentIdOf, startInMemoryTracing, traceparentOf, type InMemoryTracing } from '../../core/test/support/in-memory-tracing.js';
import { OutboxProcessor } from '../src/index.js';
import { captureLogs, outboxConfig, poisoned, type CapturedLogs } from './support/processor-fixtures.js';

let tracing: InMemoryTracing;
let provider: MemoryProvider;
let broker: InlineBroker;
let rows: RowFactory;
let logs: CapturedLogs;
let relay: OutboxProcessor;

beforeAll(() => {
  tracing = startInMemoryTracing();
});
afterAll(() => tracing.stop());
beforeEach(async () => {
  logs = captureLogs();
  provider = new MemoryProvider('default');
  rows = new RowFactory();
  broker = new InlineBroker(rows.broker);
  await broker.connect();
  relay = new OutboxProcessor({ name: 'outbox-processor-default-to-inline', store: provider.outbox, broker, config: outboxConfig(), workerId: 'worker-1' });
  tracing.reset();
});
afterEach(async () => {
  await relay.stop();
  await broker.close();
  logs.restore();
});

/** A row created inside a span of its own trace, as the unit of work writes it. */
function rowProducedIn(spanName: string, key: string, sequence: number): { row: NewOutboxRow; producer: { traceId: string; spanId: string } } {
  const span = trace.getTracer('test').startSpan(spanName);
  span.end();
  const row = rows.row(key, sequence);
  row.envelope.metadata.headers.traceparent = traceparentOf(span);
  return { row, producer: span.spanContext() };
}

async function commit(...newRows: NewOutboxRow[]): Promise<void> {
  const tx = await provider.begin();
  await provider.outbox.append(tx, newRows);
  await tx.commit();
}

it("one span per batch, a root linked to every message's producing context, the broker publish its child", async () => {
  const first = rowProducedIn('request one', 'a', 1);
  const second = rowProducedIn('request two', 'b', 1);
  const untraced = rows.row('c', 1);
  await commit(first.row, second.row, untraced);
  tracing.reset();
  await relay.tick();

  const publish = tracing.one(SpanNames.outboxPublish);
  expect(publish.kind).toBe(SpanKind.PRODUCER);
  expect(parentIdOf(publish)).toBeUndefined();
  expect(publish.links.map((link) => link.context.traceId).sort()).toEqual([first.producer.traceId, second.producer.traceId].sort());
  expect(publish.links.map((link) => link.context.spanId).sort()).toEqual([first.producer.spanId, second.producer.spanId].sort());
  expect(publish.attributes).toMatchObject({
    'messaging.system': 'protean',
    'messaging.operation.type': 'send',
    'messaging.batch.message_count': 3,
    'protean.outbox.processor': 'outbox-processor-default-to-inline',
    'protean.broker': broker.name,
    'protean.outbox.published': 3,
    'protean.outbox.failed': 0,
    'protean.outbox.unsent': 0,
  });
  expect(publish.status.code).toBe(SpanStatusCode.UNSET);

  const brokerPublish = tracing.one(SpanNames.brokerPublish);
  expect(parentIdOf(brokerPublish)).toBe(publish.spanContext().spanId);
  expect(brokerPublish.attributes).toMatchObject({ 'messaging.system': 'inline', 'messaging.batch.message_count': 3 });
});

it('a batch with a message the broker refuses: the publish span says so', async () => {
  await commit(rows.row('a', 1), poisoned(rows.row('b', 1)));
  await relay.tick();
  const publish = tracing.one(SpanNames.outboxPublish);
  expect(publish.attributes).toMatchObject({ 'protean.outbox.published': 1, 'protean.outbox.failed': 1 });
  expect(publish.status.code).toBe(SpanStatusCode.ERROR);
  expect(publish.events.map((event) => event.name)).toEqual(['exception']);
});
