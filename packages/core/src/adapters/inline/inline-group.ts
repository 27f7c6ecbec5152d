/**
 * One consumer group of an inline stream: where its delivery cursor stands and which messages
 * are pending (delivered, not yet acked), with their owner, delivery time and delivery count.
 */

export interface PendingEntry {
  /** Absolute position of the entry in its stream. */
  position: number;
  consumer: string;
  /** `-Infinity` after a nack, so the next reclaim takes it whatever its idle threshold. */
  deliveredAt: number;
  deliveryCount: number;
}

export class InlineGroup {
  /** Absolute position of the next entry to deliver. */
  cursor: number;
  /** Keyed by entry id, in first-delivery order, which is id order. */
  readonly pending = new Map<string, PendingEntry>();

  constructor(
    readonly name: string,
    startPosition: number,
  ) {
    this.cursor = startPosition;
  }
}
