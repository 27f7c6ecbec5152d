/**
 * A projector's message while its projection is being rebuilt: the projector's unit of work
 * refuses (ProjectionRebuildingError, nothing written), and the message waits here, polling,
 * instead of counting as a failed attempt; it runs once the rebuild ends. Only this projector's
 * messages wait: other subscriptions, other projections' projectors included, keep running.
 */
import { ProjectionRebuildingError, type Logger } from '@protean-ts/core';
import { abortableSleep } from './abortable-sleep.js';

/** How often a waiting message asks whether the rebuild has ended. */
export const REBUILD_POLL_MS = 1_000;

export async function waitingOutRebuilds<R>(run: () => Promise<R>, log: Logger, signal: AbortSignal | undefined): Promise<R> {
  let waiting = false;
  for (;;) {
    try {
      const result = await run();
      if (waiting) log.info('projection rebuild ended; the projector resumes');
      return result;
    } catch (error) {
      if (!(error instanceof ProjectionRebuildingError) || signal?.aborted) throw error;
      if (!waiting) log.info('projection is being rebuilt; its projector waits', { projection: error.projection, projector: error.projector });
      waiting = true;
      if (signal) await abortableSleep(REBUILD_POLL_MS, signal);
      else await new Promise((resolve) => setTimeout(resolve, REBUILD_POLL_MS));
    }
  }
}
