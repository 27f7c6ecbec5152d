/**
 * The engine's cleaners: the inbox janitor (handled-message records past their retention) and one
 * command-outcome janitor per database commands are queued in. Both read `domain.clock`.
 */
import type { Clock, Domain, Logger } from '@protean-ts/core';
import { CommandOutcomeJanitor } from './command-outcome-janitor.js';
import { InboxJanitor } from './inbox-janitor.js';

export class EngineJanitors {
  private inbox: InboxJanitor | null = null;
  private readonly outcomes: CommandOutcomeJanitor[] = [];
  /** `domain.clock`, read at each use so a test may replace it while the engine runs. */
  private readonly clock: Clock;

  constructor(
    private readonly domain: Domain,
    private readonly log: Logger,
  ) {
    this.clock = { now: () => domain.clock.now() };
  }

  async startInbox(hasSubscriptions: boolean): Promise<void> {
    const inbox = this.domain.runtime.messages.inbox;
    if (!inbox || !hasSubscriptions) return;
    const { database, retention_hours: retentionHours } = this.domain.config.inbox;
    this.inbox = new InboxJanitor(inbox, database, retentionHours, this.log.child({}, 'inbox'), this.clock);
    await this.inbox.start();
  }

  /**
   * Command outcomes live in the database each command is queued in (its aggregate's): one janitor
   * per such database. Only an engine handling commands cleans them.
   */
  async startOutcomes(handlesCommands: boolean, stopping: AbortSignal): Promise<void> {
    if (!handlesCommands || !this.domain.outboxEnabled) return;
    for (const database of this.domain.runtime.commands.databases()) {
      if (stopping.aborted) return;
      const janitor = new CommandOutcomeJanitor(
        this.domain.runtime.infrastructure.provider(database).commandOutcomes,
        database,
        this.domain.config.command_outcomes.retention_hours,
        this.log.child({}, 'command-outcomes'),
        this.clock,
      );
      this.outcomes.push(janitor);
      await janitor.start();
    }
  }

  async stop(): Promise<void> {
    await this.inbox?.stop();
    await Promise.all(this.outcomes.map((janitor) => janitor.stop()));
  }
}
