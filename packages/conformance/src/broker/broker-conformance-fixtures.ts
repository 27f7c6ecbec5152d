/**
 * Shared pieces of the broker conformance suite: the per-test broker context (opens brokers,
 * closes them afterwards, hands out unique stream names) and realistic envelopes.
 */
import { randomUUID } from 'node:crypto';
import type { Broker, BrokerCapabilityName, MessageEnvelope } from '@protean-ts/core';

export interface BrokerConformanceOptions {
  /** Every capability the adapter claims; the suite checks `has()` agrees and tests each one. */
  capabilities: readonly BrokerCapabilityName[];
  /**
   * Puts `body` on `stream` as a foreign producer would, past `publish()`'s checks (an XADD of an
   * `envelope` field, a basic.publish to the stream's exchange, a JetStream publish to its
   * subject). The stream's groups exist already. Without it the undecodable-message cases are skipped.
   */
  publishRaw?: (broker: Broker, stream: string, body: Buffer) => Promise<void>;
  /** The largest body the broker takes, on brokers whose limit a dead letter can outgrow (NATS `max_payload`). */
  payloadLimitBytes?: number;
}

/**
 * Returns a new, unconnected broker each call. Calls within one suite must share their backing
 * store (same Redis, same prefix), so DISTRIBUTED and DURABLE can be observed across instances.
 */
export type MakeBroker = () => Broker | Promise<Broker>;

export class ConformanceContext {
  private readonly opened: Broker[] = [];
  private counter = 0;
  private readonly run = randomUUID().slice(0, 8);

  constructor(
    private readonly makeBroker: MakeBroker,
    readonly options: BrokerConformanceOptions,
  ) {}

  claims(capability: BrokerCapabilityName): boolean {
    return this.options.capabilities.includes(capability);
  }

  async open(): Promise<Broker> {
    const broker = await this.makeBroker();
    this.opened.push(broker);
    return broker;
  }

  /** A stream name no other test (or parallel run) uses. */
  stream(label = 'stream'): string {
    this.counter += 1;
    return `conformance-${label}-${this.run}-${this.counter}`;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.opened.splice(0).map((broker) => broker.close()));
  }
}

/** An envelope with the awkward bits (unicode, nulls, nesting, numbers) an adapter might mangle. */
export function sampleBrokerEnvelope(stream: string, index = 0): MessageEnvelope {
  return {
    data: {
      orderId: `order-${index}`,
      index,
      total: 12.5,
      note: 'naïve café ☕ "quoted" \\ back\nslash',
      lines: [
        { sku: 'A-1', quantity: 2 },
        { sku: 'B-2', quantity: 1 },
      ],
      gift: false,
      coupon: null,
    },
    metadata: {
      headers: {
        id: randomUUID(),
        time: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, index % 1000)).toISOString(),
        type: 'Shop.OrderPlaced.v1',
        stream: `${stream}-${index}`,
        traceparent: null,
      },
      envelope: { specversion: '1.0', checksum: 'f'.repeat(64) },
      domain: {
        fqn: 'Shop.OrderPlaced',
        kind: 'EVENT',
        streamCategory: stream,
        version: 1,
        sequenceId: `${index}.0`,
        expectedVersion: index,
        correlationId: randomUUID(),
        causationId: null,
        published: true,
      },
      extensions: { tenant: 'acme', nested: { flag: true } },
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
