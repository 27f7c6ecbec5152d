/**
 * Acks of one subscription, gathered while its keys run concurrently and sent as one broker call
 * per turn of the event loop (one XACK for many messages). A failed ack only means the message
 * is delivered again; the inbox then recognises it.
 */
import type { Broker, Logger } from '@protean-ts/core';
import { TurnBatcher } from './turn-batcher.js';

export class AckBatcher {
  private readonly batcher: TurnBatcher<string, void>;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(broker: Broker, stream: string, group: string, log: Logger) {
    this.batcher = new TurnBatcher<string, void>(async (ids) => {
      try {
        await broker.ack(stream, group, ids);
      } catch (error) {
        log.warn('handled but the ack failed; the messages will be delivered again and skipped as duplicates', { count: ids.length, error });
      }
      return ids.map(() => undefined);
    });
  }

  /**
   * Queues the ack and returns at once: the key's next message need not wait for the broker's
   * reply, since a lost ack only means a redelivery the inbox skips.
   */
  ack(id: string): void {
    const sent = this.batcher.submit(id).finally(() => this.inFlight.delete(sent));
    this.inFlight.add(sent);
  }

  /** Resolves once every queued ack was sent (or failed and was logged); before the broker closes. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
