/**
 * Inbox passes of one subscription (messages of types its handler does not handle), gathered
 * while its keys run and written in one statement per turn of the event loop. Each key has at
 * most one message in flight, so a batch never names a key twice.
 */
import type { InboxStore, PositionPass } from '@protean-ts/core';

export class PassBatcher {
  private pending: { pass: PositionPass; resolve: (moved: boolean) => void; reject: (error: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    private readonly inbox: InboxStore,
    private readonly subscription: string,
  ) {}

  /** True when the key moved past this position; false when it is not the key's next. */
  pass(pass: PositionPass): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ pass, resolve, reject });
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
      const moved = await this.inbox.pass(this.subscription, batch.map((item) => item.pass));
      batch.forEach((item, i) => item.resolve(moved[i] === true));
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
}
