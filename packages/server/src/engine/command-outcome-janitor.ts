/**
 * Keeps the command outcomes small: deletes, in bounded batches, the records (and so the
 * idempotency keys) older than `[command_outcomes] retention_hours`, at start and then every
 * quarter of the retention (at least every second, at most hourly), so a short retention is
 * honoured too. Every worker runs one; their deletes skip each other's locked rows.
 */
import { systemClock, type CommandOutcomeStore, type Logger, type Clock } from '@protean-ts/core';

const BATCH_SIZE = 1_000;
/** Batches per run: a huge backlog is worked off over several runs, never in one long burst. */
const MAX_BATCHES_PER_RUN = 100;

export function cleanupIntervalMs(retentionHours: number): number {
  return Math.min(3_600_000, Math.max(1_000, Math.round((retentionHours * 3_600_000) / 4)));
}

export class CommandOutcomeJanitor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly outcomes: CommandOutcomeStore,
    private readonly database: string,
    private readonly retentionHours: number,
    private readonly log: Logger,
    /** Records older than `retentionHours` before its now are removed (`domain.clock`). */
    private readonly clock: Clock = systemClock,
  ) {}

  async start(): Promise<void> {
    await this.run();
    this.timer = setInterval(() => {
      this.running ??= this.run()
        .then(() => undefined)
        .finally(() => (this.running = null));
    }, cleanupIntervalMs(this.retentionHours));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One cleanup pass; returns how many records went. */
  async run(): Promise<number> {
    const before = new Date(this.clock.now() - this.retentionHours * 3_600_000);
    let removed = 0;
    try {
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
        const n = await this.outcomes.cleanup({ before, batchSize: BATCH_SIZE });
        removed += n;
        if (n < BATCH_SIZE) break;
      }
      const fields = { removed, retentionHours: this.retentionHours, database: this.database };
      if (removed > 0) this.log.info(`command outcome cleanup removed ${removed} records`, fields);
      else this.log.debug('command outcome cleanup removed nothing', fields);
    } catch (error) {
      const missing = isUndefinedTable(error);
      this.log.warn(
        missing
          ? `the command outcomes table of database "${this.database}" is missing: run \`protean-ts db setup\` (or \`db setup-outbox\`); awaitOutcome and idempotency keys fail until then`
          : 'command outcome cleanup failed; it runs again later',
        { error, removed },
      );
    }
    return removed;
  }
}

function isUndefinedTable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '42P01' || (error instanceof Error && /relation .* does not exist/i.test(error.message));
}
