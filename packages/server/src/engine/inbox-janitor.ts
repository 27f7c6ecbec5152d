/**
 * Keeps the inbox small: deletes, in bounded batches, the records older than
 * `[inbox] retention_hours` (messages without position, passed positions), at start and then
 * hourly. Every worker runs one; their deletes skip each other's locked rows. The first run also
 * proves the inbox tables exist, so a database never set up fails the start by name.
 */
import { systemClock, type InboxStore, type Logger, type Clock } from '@protean-ts/core';

const RUN_EVERY_MS = 3_600_000;
const BATCH_SIZE = 1_000;
/** Batches per run: a huge backlog is worked off over several runs, never in one long burst. */
const MAX_BATCHES_PER_RUN = 100;

export class InboxNotSetUpError extends Error {
  constructor(database: string, cause: unknown) {
    super(
      `The inbox tables of database "${database}" cannot be used (${cause instanceof Error ? cause.message : String(cause)}); run \`protean-ts db setup\` (or \`db setup-outbox\`) to create them`,
      { cause },
    );
    this.name = 'InboxNotSetUpError';
  }
}

export class InboxJanitor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly inbox: InboxStore,
    private readonly database: string,
    private readonly retentionHours: number,
    private readonly log: Logger,
    /** Records older than `retentionHours` before its now are removed (`domain.clock`). */
    private readonly clock: Clock = systemClock,
  ) {}

  /** The first cleanup; throws InboxNotSetUpError when the tables are missing. */
  async start(): Promise<void> {
    try {
      await this.inbox.checkpoint('$protean-check', '$protean-check');
    } catch (error) {
      if (isUndefinedTable(error)) throw new InboxNotSetUpError(this.database, error);
      throw error;
    }
    this.running = this.run();
    await this.running;
    this.timer = setInterval(() => {
      this.running ??= this.run().finally(() => (this.running = null));
    }, RUN_EVERY_MS);
    this.timer.unref();
    this.running = null;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async run(): Promise<void> {
    const before = new Date(this.clock.now() - this.retentionHours * 3_600_000);
    let removed = 0;
    try {
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
        const n = await this.inbox.cleanup({ before, batchSize: BATCH_SIZE });
        removed += n;
        if (n < BATCH_SIZE) break;
      }
      const fields = { removed, retentionHours: this.retentionHours, database: this.database };
      if (removed > 0) this.log.info(`inbox cleanup removed ${removed} records`, fields);
      else this.log.debug('inbox cleanup removed nothing', fields);
    } catch (error) {
      this.log.warn('inbox cleanup failed; it runs again in an hour', { error, removed });
    }
  }
}

function isUndefinedTable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '42P01' || (error instanceof Error && /relation .* does not exist/i.test(error.message));
}
