/**
 * A projector's message while its projection is being rebuilt: the projector's unit of work
 * refuses (ProjectionRebuildingError, nothing written), and the message waits here, polling,
 * instead of counting as a failed attempt; it runs once the rebuild ends. Only this projector's
 * messages wait: other subscriptions, other projections' projectors included, keep running.
 */
import { ProjectionRebuildingError, type HandleOutcome, type Logger } from '@protean-ts/core';
import { abortableSleep } from './abortable-sleep.js';

/** How often a waiting message asks whether the rebuild has ended. */
export const REBUILD_POLL_MS = 1_000;

export async function waitingOutRebuilds(run: () => Promise<HandleOutcome>, log: Logger, signal: AbortSignal | undefined, pollMs = REBUILD_POLL_MS): Promise<HandleOutcome> {
  let waiting = false;
  for (;;) {
    try {
      const result = await run();
      if (waiting) log.info('projection rebuild ended; the projector resumes');
      return result;
    } catch (error) {
      if (!(error instanceof ProjectionRebuildingError)) throw error;
      // Stopping mid-wait: not a failure (no attempt counted, never dead-lettered); the message
      // stays unsettled and is read again after the restart.
      if (signal?.aborted) return 'early';
      if (!waiting) log.info('projection is being rebuilt; its projector waits', { projection: error.projection, projector: error.projector });
      waiting = true;
      if (signal) await abortableSleep(pollMs, signal);
      else await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}
