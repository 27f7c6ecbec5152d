/**
 * The event store of the memory provider. Appends are staged in the transaction and checked
 * again at commit (another transaction may have appended to the stream meanwhile: that is a
 * `StreamVersionError` at commit, as the memory DAO reports version conflicts). Commit applies
 * them in one synchronous step, assigning stream positions, global positions and the commit
 * number that serves as transaction id; so readers only ever see whole, committed transactions
 * in commit order and never skip one, the guarantee PostgreSQL gives through `pg_snapshot_xmin`.
 */
import { TransactionStateError } from '../../errors/transaction-state.error.js';
import { StreamVersionError } from '../../errors/stream-version.error.js';
import type { ProviderTransaction } from '../../ports/database-provider.js';
import { EventStore, type CategoryRead, type StreamRead } from '../../ports/event-store.js';
import type { AppendResult, NewEvent, ReaderCursor, SealedSnapshot, Snapshot, StoredEvent } from '../../ports/event-store-records.js';
import { ALL_STREAMS, categoryOf } from '../../ports/stream-names.js';
import type { EventStoreSubscriptions } from '../../ports/event-store-subscriptions.js';
import { MemoryEventStoreSubscriptions } from './memory-event-store-subscriptions.js';
import { MemoryTransaction } from './memory-transaction.js';

export type { StagedStreamAppend } from './staged-writes.js';

export class MemoryEventStore extends EventStore {
  private readonly streams = new Map<string, StoredEvent[]>();
  /** Every committed event in reader order (commit number, then global position). */
  private readonly log: StoredEvent[] = [];
  /** The same, per category. */
  private readonly categories = new Map<string, StoredEvent[]>();
  private readonly snapshots = new Map<string, Snapshot>();
  private lastGlobalPosition = 0;
  private lastCommit = 0;
  private readonly subscriptionStore = new MemoryEventStoreSubscriptions();

  constructor(
    private readonly providerName: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    super();
  }

  protected createSubscriptions(): EventStoreSubscriptions {
    return this.subscriptionStore;
  }

  protected async _append(tx: ProviderTransaction, stream: string, events: readonly NewEvent[], expectedVersion: number | undefined): Promise<AppendResult> {
    const staging = this.own(tx);
    staging.assertActive(`append events to stream "${stream}"`);
    const staged = staging.streamAppends.get(stream);
    const current = staged ? staged.baseVersion + staged.events.length : this.committedVersion(stream);
    if (expectedVersion !== undefined && expectedVersion !== current) throw new StreamVersionError(stream, expectedVersion, current);
    const target = staged ?? { baseVersion: current, checked: false, events: [] };
    target.checked ||= expectedVersion !== undefined;
    // Copied: the caller may reuse its objects; the store keeps what was appended.
    target.events.push(...events.map((event) => structuredClone({ ...event, metadata: event.metadata ?? {} })));
    staging.streamAppends.set(stream, target);
    return { version: current + events.length };
  }

  protected async _readStream(stream: string, read: StreamRead, tx: ProviderTransaction | undefined): Promise<StoredEvent[]> {
    const own = tx ? this.own(tx) : undefined;
    const events = [...(this.streams.get(stream) ?? []), ...this.stagedEvents(own, stream)];
    const until = read.until?.getTime();
    return events
      .filter((event) => event.position >= read.from && (until === undefined || event.time.getTime() <= until))
      .slice(0, read.limit)
      .map(copy);
  }

  protected async _readCategory(category: string, read: CategoryRead): Promise<StoredEvent[]> {
    const log = category === ALL_STREAMS ? this.log : (this.categories.get(category) ?? []);
    const first = firstAfter(log, read.after);
    return log.slice(first, first + read.limit).map(copy);
  }

  protected async _readCategories(categories: readonly string[], read: CategoryRead): Promise<StoredEvent[]> {
    // Commits apply synchronously, so the category logs are one consistent picture: the first
    // `limit` of each, after the cursor, hold the first `limit` of their union.
    const heads = categories.flatMap((category) => {
      const log = this.categories.get(category) ?? [];
      const first = firstAfter(log, read.after);
      return log.slice(first, first + read.limit);
    });
    return heads.sort(inReaderOrder).slice(0, read.limit).map(copy);
  }

  protected async _committedEnd(categories: readonly string[] | null): Promise<ReaderCursor | null> {
    // No horizon here: every committed event is readable, so this is where reads end.
    const logs = categories === null ? [this.log] : categories.map((category) => this.categories.get(category) ?? []);
    const lasts = logs.flatMap((log) => log.slice(-1));
    const last = lasts.sort(inReaderOrder).pop();
    return last ? { transactionId: last.transactionId, globalPosition: last.globalPosition } : null;
  }

  protected async _streamVersion(stream: string, tx: ProviderTransaction | undefined): Promise<number> {
    const staged = tx ? this.own(tx).streamAppends.get(stream) : undefined;
    return staged ? staged.baseVersion + staged.events.length : this.committedVersion(stream);
  }

  protected async _lastEvent(stream: string, tx: ProviderTransaction | undefined): Promise<StoredEvent | null> {
    const own = tx ? this.own(tx) : undefined;
    const staged = this.stagedEvents(own, stream);
    const last = staged.length ? staged[staged.length - 1] : this.streams.get(stream)?.at(-1);
    return last ? copy(last) : null;
  }

  protected async _saveSnapshot(snapshot: SealedSnapshot, tx: ProviderTransaction | undefined, replace: boolean): Promise<void> {
    if (!tx) return this.keepSnapshot(snapshot, replace);
    const staging = this.own(tx);
    staging.assertActive(`save a snapshot of stream "${snapshot.streamName}"`);
    staging.snapshots.push({ snapshot: structuredClone(snapshot), replace });
  }

  protected async _latestSnapshot(stream: string, tx: ProviderTransaction | undefined): Promise<Snapshot | null> {
    // What this transaction's commit would keep, applied in order over the committed one.
    let newest: Snapshot | undefined = this.snapshots.get(stream);
    for (const { snapshot, replace } of tx ? this.own(tx).snapshots : []) {
      if (snapshot.streamName === stream && (replace || !newest || snapshot.version > newest.version)) newest = { ...snapshot, time: this.now() };
    }
    return newest ? { ...structuredClone(newest), time: new Date(newest.time) } : null;
  }

  /** Called by the provider at commit, before anything is applied: throws on a version conflict. */
  checkCommit(tx: MemoryTransaction): void {
    for (const [stream, staged] of tx.streamAppends) {
      const committed = this.committedVersion(stream);
      if (staged.checked && committed !== staged.baseVersion) throw new StreamVersionError(stream, staged.baseVersion, committed);
    }
  }

  /** Called by the provider at commit, after `checkCommit`: numbers and publishes the events. */
  applyCommit(tx: MemoryTransaction): void {
    if (tx.streamAppends.size > 0) {
      const transactionId = ++this.lastCommit;
      const time = this.now();
      for (const [stream, staged] of tx.streamAppends) {
        const events = this.streams.get(stream) ?? [];
        for (const event of staged.events) {
          const stored: StoredEvent = {
            globalPosition: ++this.lastGlobalPosition,
            position: events.length,
            time: new Date(time),
            messageId: event.messageId,
            streamName: stream,
            type: event.type,
            data: event.data,
            metadata: event.metadata ?? {},
            transactionId,
          };
          events.push(stored);
          this.log.push(stored);
          const category = categoryOf(stream);
          const log = this.categories.get(category) ?? [];
          log.push(stored);
          this.categories.set(category, log);
        }
        this.streams.set(stream, events);
      }
    }
    for (const { snapshot, replace } of tx.snapshots) this.keepSnapshot(snapshot, replace);
  }

  /** Forgets everything (the provider's truncate). */
  clear(): void {
    this.streams.clear();
    this.log.length = 0;
    this.categories.clear();
    this.snapshots.clear();
    this.lastGlobalPosition = 0;
    this.lastCommit = 0;
    this.subscriptionStore.clear();
  }

  private committedVersion(stream: string): number {
    return (this.streams.get(stream)?.length ?? 0) - 1;
  }

  /**
   * The reading transaction's own appends, after the committed events. They have no global
   * position or transaction id before commit: both read 0 here (PostgreSQL has assigned them).
   */
  private stagedEvents(tx: MemoryTransaction | undefined, stream: string): StoredEvent[] {
    const staged = tx?.isActive ? tx.streamAppends.get(stream) : undefined;
    if (!staged) return [];
    const first = this.committedVersion(stream) + 1;
    const time = this.now();
    return staged.events.map((event, i) => ({
      globalPosition: 0,
      position: first + i,
      time,
      messageId: event.messageId,
      streamName: stream,
      type: event.type,
      data: event.data,
      metadata: event.metadata ?? {},
      transactionId: 0,
    }));
  }

  private keepSnapshot(snapshot: SealedSnapshot, replace: boolean): void {
    const current = this.snapshots.get(snapshot.streamName);
    if (current && current.version >= snapshot.version && !replace) return;
    this.snapshots.set(snapshot.streamName, { ...structuredClone(snapshot), time: this.now() });
  }

  private own(tx: ProviderTransaction): MemoryTransaction {
    if (!(tx instanceof MemoryTransaction) || tx.providerName !== this.providerName) {
      throw new TransactionStateError(
        `The event store of memory database "${this.providerName}" was given a transaction of "${tx?.providerName ?? 'unknown'}"; use a transaction opened by this provider, so the events commit with it`,
      );
    }
    return tx;
  }
}

/** Index of the first event of `log` (in reader order) after `cursor`: a binary search. */
function firstAfter(log: readonly StoredEvent[], cursor: CategoryRead['after']): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const event = log[middle]!;
    const isAfter =
      event.transactionId > cursor.transactionId || (event.transactionId === cursor.transactionId && event.globalPosition > cursor.globalPosition);
    if (isAfter) high = middle;
    else low = middle + 1;
  }
  return low;
}

function inReaderOrder(a: StoredEvent, b: StoredEvent): number {
  return a.transactionId - b.transactionId || a.globalPosition - b.globalPosition;
}

function copy(event: StoredEvent): StoredEvent {
  return { ...structuredClone(event), time: new Date(event.time) };
}
