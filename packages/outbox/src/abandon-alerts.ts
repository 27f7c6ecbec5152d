/**
 * Delivers "message abandoned" alerts to the `domain.onAbandoned` listeners without letting them
 * hold up the relay: each call runs in the background with a time limit, and one that throws,
 * rejects or never settles is logged and counted. At most `MAX_IN_FLIGHT` calls are outstanding
 * (a listener that hangs on every call cannot grow memory without bound); alerts past that are
 * dropped, logged and counted too, so the WARN line and the counters remain the record.
 */
import type { AbandonedMessage, AbandonedMessageListener, Logger } from '@protean-ts/core';

const MAX_IN_FLIGHT = 1000;

export interface AbandonAlertCounts {
  /** Listener calls that threw, rejected or passed the time limit. */
  failed: number;
  /** Alerts not delivered because too many calls were outstanding. */
  dropped: number;
}

export class AbandonAlerts {
  readonly counts: AbandonAlertCounts = { failed: 0, dropped: 0 };
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly listeners: () => readonly AbandonedMessageListener[],
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  /** Starts one call per listener and message; returns at once. */
  raise(messages: readonly AbandonedMessage[]): void {
    if (messages.length === 0) return;
    let listeners: readonly AbandonedMessageListener[];
    try {
      listeners = this.listeners();
    } catch (error) {
      this.counts.failed += messages.length;
      this.log.error('could not read the abandoned-message listeners', { error: describe(error) });
      return;
    }
    for (const message of messages) {
      for (const listener of listeners) {
        if (this.inFlight.size >= MAX_IN_FLIGHT) {
          this.counts.dropped += 1;
          this.log.error(`abandoned-message alert dropped: ${MAX_IN_FLIGHT} listener calls are still running`, { messageId: message.messageId });
          continue;
        }
        const call = this.call(listener, message);
        this.inFlight.add(call);
        void call.finally(() => this.inFlight.delete(call));
      }
    }
  }

  /** Waits for the calls still running (each ends within the time limit). */
  async settle(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private async call(listener: AbandonedMessageListener, message: AbandonedMessage): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    const fields = { messageId: message.messageId, messageType: message.messageType, listener: listener.name || 'anonymous' };
    try {
      // Called inside the promise chain, so a listener that throws synchronously is caught too.
      const outcome = await Promise.race([Promise.resolve().then(() => listener({ ...message })), timedOut]);
      if (outcome === 'timeout') {
        this.counts.failed += 1;
        this.log.error(`abandoned-message listener did not finish within ${this.timeoutMs} ms; no longer waiting for it`, fields);
      }
    } catch (error) {
      this.counts.failed += 1;
      this.log.error('abandoned-message listener failed', { ...fields, error: describe(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
