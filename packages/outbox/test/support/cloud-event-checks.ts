/**
 * What every CloudEvents test of the outbox checks, whatever the broker: the attributes a plain
 * client read (structured JSON, or binary headers turned back into one object) against the
 * outbox row the event left as.
 */
import { expect } from 'vitest';
import type { OutboxRow } from '@protean-ts/core';

/** `attributes`: what the reader got, as strings (binary) or JSON values (structured); `data` parsed. */
export function expectCloudEventOfRow(attributes: Record<string, unknown>, data: unknown, row: OutboxRow, source: string): void {
  const { headers, domain } = row.envelope.metadata;
  expect(attributes).toMatchObject({
    specversion: '1.0',
    id: headers.id,
    source,
    type: 'Shop.OrderPlaced.v1',
    time: headers.time,
    subject: headers.stream,
    proteanfqn: 'Shop.OrderPlaced',
    proteankind: 'EVENT',
    proteancategory: 'shop::order',
  });
  expect(String(attributes.proteanversion)).toBe('1');
  expect(attributes.correlationid).toBe(domain.correlationId ?? undefined);
  expect(attributes.causationid).toBe(domain.causationId ?? undefined);
  expect(attributes.traceparent).toBe(headers.traceparent ?? undefined);
  const position = row.envelope.metadata.envelope.position;
  expect(attributes.partitionkey).toBe(position?.key);
  expect(attributes.streamposition === undefined ? undefined : Number(attributes.streamposition)).toBe(position?.sequence);
  expect(data).toEqual(row.envelope.data);
}
