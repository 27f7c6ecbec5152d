/**
 * What an outbox processor tells its log about the messages it relays: per batch and per pass at
 * debug (a quiet system would log every commit), a throughput line at info once a minute.
 * Elapsed times here are wall-clock measurements for the log, not decisions.
 */
import type { Logger, OutboxRow } from '@protean-ts/core';

const REPORT_EVERY_MS = 60_000;

export class RelayLog {
  private reported = { at: Date.now(), published: 0 };

  constructor(private readonly log: Logger) {}

  published(rows: readonly OutboxRow[]): void {
    if (rows.length === 0) return;
    const perStream = new Map<string, number>();
    for (const row of rows) perStream.set(row.streamName, (perStream.get(row.streamName) ?? 0) + 1);
    for (const [stream, count] of perStream) this.log.debug(`published ${count} messages to stream ${stream}`, { stream, count });
  }

  /** One pass; `totalPublished` and `perSecond` are the processor's running figures. */
  pass(pass: { batches: number; published: number; failed: number; started: number }, totalPublished: number, perSecond: number): void {
    const { batches, published, failed, started } = pass;
    if (batches > 0) this.log.debug(`relayed ${published} messages in ${batches} batches`, { published, failed, batches, ms: Date.now() - started });
    const now = Date.now();
    if (now - this.reported.at < REPORT_EVERY_MS) return;
    const count = totalPublished - this.reported.published;
    if (count > 0) {
      this.log.info(`published ${count} messages in the last ${Math.round((now - this.reported.at) / 1000)} s`, {
        count,
        perSecond: Math.round(perSecond * 10) / 10,
      });
    }
    this.reported = { at: now, published: totalPublished };
  }
}
