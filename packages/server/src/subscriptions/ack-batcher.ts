/**
 * Acks of one subscription, gathered while its keys run concurrently and sent as one broker call
 * per turn of the event loop (one XACK for many messages). A failed ack only means the message
 * is delivered again; the inbox then recognises it.
 */
import type { Broker, Logger } from '@protean-ts/core';
import { TurnBatcher } from './turn-batcher.js';

export class AckBatcher {
  private readonly batcher: TurnBatcher<string, void>;

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

  /** Resolves once the ack was sent (or failed and was logged); never rejects. */
  ack(id: string): Promise<void> {
    return this.batcher.submit(id);
  }
}
