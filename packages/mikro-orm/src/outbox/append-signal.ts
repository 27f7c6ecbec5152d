/**
 * Tells the outbox's relays that rows were committed, without making every commit notify.
 *
 * A NOTIFY queued inside a transaction makes PostgreSQL serialise that transaction's commit with
 * every other notifying commit (a global lock taken at commit): with one NOTIFY per appending
 * commit, about half of the busy backends were measured waiting on that lock (issue 23). So the
 * append statement does not notify. After the commit:
 * - a process that relays this outbox itself (a server worker: its relays listen here) wakes its
 *   relays directly and notifies no one: they publish what it committed, and waking the other
 *   workers' relays too only made them race for the rows with empty claims;
 * - a process that only writes (an application, a CLI command) sends one NOTIFY, on the pool in a
 *   transaction of its own; while one is on its way, further commits only ask for one more after
 *   it, so such a process sends at most one NOTIFY per round trip however fast it commits.
 * A NOTIFY is sent only after the rows committed, so a listener never looks for rows it cannot see
 * yet. Every relay still polls every `outbox.tick_interval`: the safety net for a process killed
 * between its commit and the wake-up, and how idle relays join in on a backlog.
 */
import { randomUUID } from 'node:crypto';
import { getLogger } from '@protean-ts/core';
import { PREPARED, type SqlDatabase } from '../sql-executor.js';
import { OUTBOX_CHANNEL } from './outbox-table.js';

const NOTIFY_SQL = 'SELECT pg_notify(?, ?)';

/** Between the table and the sender in a NOTIFY payload (a qualified table name holds no newline). */
const SENDER_SEPARATOR = '\n';

export class AppendSignal {
  /** Names this signal in its NOTIFY payloads, so its own listeners, woken directly, skip them. */
  private readonly sender = randomUUID();
  private readonly localListeners = new Set<() => void>();
  private sending = false;
  private again = false;

  constructor(
    private readonly db: SqlDatabase,
    /** The qualified outbox table, in the NOTIFY payload: every schema's outbox shares the channel. */
    private readonly table: string,
  ) {}

  /** Runs after a commit that appended rows (registered with the transaction's afterCommit). */
  readonly committed = (): void => {
    if (this.localListeners.size === 0) {
      this.notifyOtherProcesses();
      return;
    }
    for (const listener of this.localListeners) listener();
  };

  /**
   * Whether a NOTIFY payload announces rows of this table from another sender (an older
   * version's payload, the table name alone, counts as another sender).
   */
  announcesOthersRows(payload: string): boolean {
    const cut = payload.lastIndexOf(SENDER_SEPARATOR);
    if (cut < 0) return payload === this.table;
    return payload.slice(0, cut) === this.table && payload.slice(cut + 1) !== this.sender;
  }

  /** Listeners of this process, woken at once on this process's commits. */
  addLocalListener(listener: () => void): () => void {
    this.localListeners.add(listener);
    return () => this.localListeners.delete(listener);
  }

  private notifyOtherProcesses(): void {
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = true;
    void this.send();
  }

  private async send(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.db.execute(NOTIFY_SQL, [OUTBOX_CHANNEL, `${this.table}${SENDER_SEPARATOR}${this.sender}`], PREPARED);
      } while (this.again);
    } catch (error) {
      // The rows are committed; relays that missed the signal find them on their next poll.
      getLogger('postgresql', { provider: this.db.providerName }).warn(
        'could not notify other processes of committed outbox rows; their relays find them on their next poll',
        {
          table: this.table,
          error: (error as Error).message,
        },
      );
    } finally {
      this.sending = false;
    }
  }
}
