/**
 * Acks of one subscription, gathered while its keys run concurrently and sent as one broker call
 * per turn of the event loop (one XACK for many messages). A failed ack only means the message
 * is delivered again; the inbox then recognises it.
 */
import type { Broker, Logger } from '@protean-ts/core';

export class AckBatcher {
  private pending: { id: string; resolve: () => void }[] = [];
  private scheduled = false;

  constructor(
    private readonly broker: Broker,
    private readonly stream: string,
    private readonly group: string,
    private readonly log: Logger,
  ) {}

  /** Resolves once the ack was sent (or failed and was logged); never rejects. */
  ack(id: string): Promise<void> {
    return new Promise((resolve) => {
      this.pending.push({ id, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    try {
      await this.broker.ack(this.stream, this.group, batch.map((item) => item.id));
    } catch (error) {
      this.log.warn('handled but the ack failed; the messages will be delivered again and skipped as duplicates', { count: batch.length, error });
    }
    for (const item of batch) item.resolve();
  }
}
