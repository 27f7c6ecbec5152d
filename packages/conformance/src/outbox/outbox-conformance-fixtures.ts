/**
 * Row builders for the outbox store conformance suite: every row gets a unique message id and,
 * per test, unique partition keys and target broker, so a shared database stays usable.
 */
import { randomUUID } from 'node:crypto';
import type { MessageEnvelope, NewOutboxRow } from '@protean-ts/core';

export function conformanceEnvelope(messageId: string, partitionKey: string, sequence: number): MessageEnvelope {
  return {
    data: { orderId: partitionKey, amount: 12.5, tags: ['a', 'b'], nested: { flag: true, none: null } },
    metadata: {
      headers: { id: messageId, time: '2024-05-01T10:00:00.000Z', type: 'Conformance.ThingHappened.v1', stream: partitionKey, traceparent: null },
      envelope: { specversion: '1.0', checksum: 'abc123' },
      domain: {
        fqn: 'Conformance.ThingHappened',
        kind: 'EVENT',
        streamCategory: 'conformance::thing',
        version: 1,
        sequenceId: `${sequence}.0`,
        expectedVersion: sequence - 1,
        correlationId: 'corr-1',
        causationId: null,
        published: false,
      },
      extensions: { note: 'ü ✓' },
    },
  };
}

/** Builds rows for one test; `broker` and key prefixes are unique to it. */
/** Waits in real time: the stores compare lock and due times with the database's clock. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class RowFactory {
  readonly broker = `conf-${randomUUID().slice(0, 8)}`;
  private readonly prefix = `conformance::thing-${randomUUID().slice(0, 8)}`;

  key(name: string): string {
    return `${this.prefix}-${name}`;
  }

  /** `sequence` is the one the store should assign (rows of a key appended in order); it labels the envelope. */
  row(key: string, sequence: number, overrides: Partial<NewOutboxRow> = {}): NewOutboxRow {
    const messageId = randomUUID();
    const partitionKey = this.key(key);
    return {
      messageId,
      streamName: 'conformance::thing',
      partitionKey,
      messageType: 'Conformance.ThingHappened.v1',
      envelope: conformanceEnvelope(messageId, partitionKey, sequence),
      targetBroker: this.broker,
      maxRetries: 3,
      ...overrides,
    };
  }
}
