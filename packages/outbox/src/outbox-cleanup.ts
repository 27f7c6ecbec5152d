/**
 * Deletes the outbox rows kept past their retention: published rows after
 * `outbox.cleanup.published_retention_hours`, abandoned ones after `abandoned_retention_hours`.
 * A failure is logged and left to the next run: cleanup never stops the relay.
 */
import type { Clock, Logger, OutboxConfig, OutboxStore } from '@protean-ts/core';

const HOUR_MS = 3_600_000;

/** Rows removed, or null when the cleanup failed (and was logged). */
export async function cleanUpOutbox(
  store: OutboxStore,
  cleanup: OutboxConfig['cleanup'],
  batchSize: number,
  log: Logger,
  clock: Clock,
): Promise<{ published: number; abandoned: number } | null> {
  const { published_retention_hours: publishedHours, abandoned_retention_hours: abandonedHours } = cleanup;
  const now = clock.now();
  try {
    const removed = await store.cleanup({
      publishedBefore: new Date(now - publishedHours * HOUR_MS),
      abandonedBefore: new Date(now - abandonedHours * HOUR_MS),
      batchSize,
    });
    const line = `outbox cleanup removed ${removed.published} published and ${removed.abandoned} abandoned rows`;
    const fields = {
      published: removed.published,
      abandoned: removed.abandoned,
      publishedRetentionHours: publishedHours,
      abandonedRetentionHours: abandonedHours,
    };
    if (removed.published + removed.abandoned > 0) log.info(line, fields);
    else log.debug(line, fields);
    return removed;
  } catch (error) {
    log.warn('outbox cleanup failed; it runs again at the next interval', { error: error instanceof Error ? error.message : String(error) });
    return null;
  }
}
