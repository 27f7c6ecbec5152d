/**
 * This consumer's heartbeat in one group's broker: it reports itself alive every third of the
 * TTL on a timer of its own (so it proves the event loop runs, whatever the read loop waits on),
 * and the read loop takes over the messages of consumers whose heartbeat stopped, within seconds
 * of a SIGKILL, instead of after `claim_idle_ms`. A live consumer with a slow handler keeps
 * reporting and is never robbed.
 */
import type { Broker, Logger, ReceivedMessage } from '@protean-ts/core';

/** A consumer silent this long is dead. Above any event-loop stall a healthy worker should show. */
export const LIVENESS_TTL_MS = 5_000;
/** How often the read loop looks for dead consumers' messages. */
export const DEAD_CONSUMER_CHECK_MS = 1_000;

export class Liveness {
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;

  constructor(
    private readonly broker: Broker,
    private readonly consumer: string,
    private readonly log: Logger,
  ) {}

  get supported(): boolean {
    return this.broker.has('LIVENESS');
  }

  start(): void {
    if (!this.supported || this.timer) return;
    void this.report();
    this.timer = setInterval(() => void this.report(), Math.floor(LIVENESS_TTL_MS / 3));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Messages of the group's dead consumers, taken over by this one; [] on failure (logged). */
  async takeOverFromDead(stream: string, group: string, count: number): Promise<ReceivedMessage[]> {
    // No room in the read-ahead (count 0): the dead consumer's messages wait for the next look.
    if (!this.supported || count < 1) return [];
    try {
      return await this.broker.reclaimFromDeadConsumers(stream, group, this.consumer, count);
    } catch (error) {
      this.log.debug('looking for dead consumers failed; the claim_idle_ms reclaim still covers them', { error });
      return [];
    }
  }

  private async report(): Promise<void> {
    try {
      await this.broker.reportAlive(this.consumer, LIVENESS_TTL_MS);
      this.failures = 0;
    } catch (error) {
      // An outage: the subscription's own loop reports it; here only the first failure is worth a line.
      this.failures += 1;
      if (this.failures === 1) this.log.debug('could not report this consumer alive', { error });
    }
  }
}
