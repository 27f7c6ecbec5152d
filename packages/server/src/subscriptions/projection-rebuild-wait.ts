/**
 * A projector's message while its projection is being rebuilt: the projector's unit of work
 * refuses (ProjectionRebuildingError, nothing written), and the message waits here, polling,
 * instead of counting as a failed attempt; it runs once the rebuild ends. Only this projector's
 * messages wait: other subscriptions, other projections' projectors included, keep running.
 *
 * A subscription handles up to `concurrency` streams at once, so during a rebuild many of its
 * messages wait together; the subscription logs the wait once, when its first message starts
 * waiting, and the resume once, when its last waiting message goes on.
 */
import { ProjectionRebuildingError, type HandleOutcome, type Logger } from '@protean-ts/core';
import { abortableSleep } from './abortable-sleep.js';

/** How often a waiting message asks whether the rebuild has ended. */
export const REBUILD_POLL_MS = 1_000;

/** The messages of one subscription waiting out a rebuild. */
class SubscriptionRebuildWait {
  private waiting = 0;
  /** Whether a message left the wait by running (not by a stop) since the wait began. */
  private resumed = false;
  private fields: { projection: string; projector: string } | undefined;

  constructor(private readonly log: Logger) {}

  enter(refusal: ProjectionRebuildingError): void {
    if (this.waiting++ > 0) return;
    this.resumed = false;
    this.fields = { projection: refusal.projection, projector: refusal.projector };
    this.log.info('projection is being rebuilt; its projector waits', this.fields);
  }

  leave(ran: boolean): void {
    this.resumed ||= ran;
    if (--this.waiting === 0 && this.resumed) this.log.info('projection rebuild ended; the projector resumes', this.fields);
  }
}

// The server gives each subscription a logger of its own (a child naming it), so the logger
// stands for the subscription here: the messages passing the same one share its wait.
const waits = new WeakMap<Logger, SubscriptionRebuildWait>();

function waitOf(log: Logger): SubscriptionRebuildWait {
  let wait = waits.get(log);
  if (!wait) waits.set(log, (wait = new SubscriptionRebuildWait(log)));
  return wait;
}

/** Runs `run` until the projection is not being rebuilt; `log` is the subscription's own logger. */
export async function waitingOutRebuilds(
  run: () => Promise<HandleOutcome>,
  log: Logger,
  signal: AbortSignal | undefined,
  pollMs = REBUILD_POLL_MS,
): Promise<HandleOutcome> {
  let wait: SubscriptionRebuildWait | undefined;
  let ran = false;
  try {
    for (;;) {
      try {
        const result = await run();
        ran = true;
        return result;
      } catch (error) {
        if (!(error instanceof ProjectionRebuildingError)) {
          ran = true;
          throw error;
        }
        // Stopping mid-wait: not a failure (no attempt counted, never dead-lettered); the message
        // stays unsettled and is read again after the restart.
        if (signal?.aborted) return 'early';
        if (!wait) {
          wait = waitOf(log);
          wait.enter(error);
        }
        if (signal) await abortableSleep(pollMs, signal);
        else await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    }
  } finally {
    wait?.leave(ran);
  }
}
