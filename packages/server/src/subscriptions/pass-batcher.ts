/**
 * Inbox passes of one subscription (messages of types its handler does not handle), gathered
 * while its keys run and written in one statement per turn of the event loop. Each key has at
 * most one message in flight, so a batch never names a key twice.
 */
import type { InboxStore, PositionPass } from '@protean-ts/core';
import { TurnBatcher } from './turn-batcher.js';

export class PassBatcher {
  private readonly batcher: TurnBatcher<PositionPass, boolean>;

  constructor(inbox: InboxStore, subscription: string) {
    this.batcher = new TurnBatcher((passes) => inbox.pass(subscription, passes));
  }

  /** True when the key moved past this position; false when it is not the key's next. */
  pass(pass: PositionPass): Promise<boolean> {
    return this.batcher.submit(pass);
  }
}
