/** The rows both relays move: the same envelope shape and size, `keys` aggregates round-robin. */
import { newMessageId, type MessageEnvelope, type NewOutboxRow } from '@protean-ts/core';

export const BENCH_STREAM = 'bench::order';

export function benchEnvelope(messageId: string, partitionKey: string, sequence: number): MessageEnvelope {
  return {
    data: {
      orderId: partitionKey,
      customer: 'Ann',
      total: 125.5,
      lines: [
        { sku: 'SKU-1', quantity: 2 },
        { sku: 'SKU-2', quantity: 1 },
      ],
    },
    metadata: {
      headers: { id: messageId, time: new Date().toISOString(), type: 'Bench.OrderPlaced.v1', stream: partitionKey, traceparent: null },
      envelope: { specversion: '1.0', checksum: 'f'.repeat(64) },
      domain: {
        fqn: 'Bench.OrderPlaced',
        kind: 'EVENT',
        streamCategory: BENCH_STREAM,
        version: 1,
        sequenceId: `${sequence}.0`,
        expectedVersion: sequence - 1,
        correlationId: messageId,
        causationId: null,
        published: false,
      },
      extensions: {},
    },
  };
}

/** A bench row keeps its per-key sequence for the raw relay's own table (the framework's store numbers rows itself). */
export type BenchRow = NewOutboxRow & { sequence: number };

/** Row `i` of a run: key `i % keys`, sequence growing per key. */
export function benchRow(i: number, keys: number, targetBroker: string, tag: string): BenchRow {
  // The ids the framework gives messages (time-ordered UUIDv7), on both sides.
  const messageId = newMessageId();
  const partitionKey = `bench::order-${tag}-${i % keys}`;
  const sequence = Math.floor(i / keys) + 1;
  return {
    messageId,
    streamName: BENCH_STREAM,
    partitionKey,
    sequence,
    messageType: 'Bench.OrderPlaced.v1',
    envelope: benchEnvelope(messageId, partitionKey, sequence),
    targetBroker,
    maxRetries: 5,
  };
}
