/**
 * Reads StockReceived events stored at version 1 as version 2. Stored events are never
 * rewritten: every load of an old stock item, and every delivery of an old event to a handler,
 * goes through this step (see docs/event-sourcing.md#upcasters).
 */
import type { MessageMetadata } from '@protean-ts/core';
import { domain } from '../shop.js';
import { StockReceived } from './stock-item.js';

/** StockReceived as version 1 stored it; only this upcaster reads that shape. */
export interface StockReceivedV1 {
  sku: string;
  quantity: number;
  /** The units on hand after the delivery. */
  onHand: number;
}

@domain.upcaster({ event: StockReceived, from: 1, to: 2 })
export class StockReceivedV1ToV2 {
  upcast(data: Record<string, unknown>, _metadata: Readonly<MessageMetadata>): Record<string, unknown> {
    const { onHand, ...rest } = data as Record<string, unknown> & Partial<StockReceivedV1>;
    return { ...rest, onHandAfter: onHand };
  }
}
