/**
 * The event store port. Adapters (memory in core, PostgreSQL in @protean-ts/mikro-orm) implement
 * the small `_` methods; the public ones check arguments first, so a caller's bug is an
 * `InvalidEventStoreRequestError` or `InvalidStreamNameError`, never an adapter's cryptic reply.
 *
 * Appends run in the caller's transaction (the unit of work's), so events commit with the rest of
 * its writes; the expected-version check and the write are atomic (`StreamVersionError`, an
 * `ExpectedVersionError`, on mismatch). Category and `$all` readers never skip a committed event:
 * see `ReaderCursor`.
 */
import type { ProviderTransaction } from './provider-transaction.js';
import { inSpan } from '../tracing/in-span.js';
import { SpanAttributes, SpanNames } from '../tracing/span-names.js';
import { EventStoreChecks } from './event-store-checks.js';
import { ALL_STREAMS } from './stream-names.js';
import { checkedSubscriptions } from './event-store-subscription-checks.js';
import { snapshotChecksum } from './snapshot-checksum.js';
import type { EventStoreSubscriptions } from './event-store-subscriptions.js';
import {
  DEFAULT_PAGE_SIZE,
  START_CURSOR,
  type AppendOptions,
  type AppendResult,
  type CategoryPage,
  type CategoryReadOptions,
  type NewEvent,
  type NewSnapshot,
  type ReaderCursor,
  type SaveSnapshotOptions,
  type SealedSnapshot,
  type Snapshot,
  type StoredEvent,
  type StreamReadOptions,
} from './event-store-records.js';

/** Stream read options after defaults: what adapters receive. */
export interface StreamRead {
  from: number;
  limit: number;
  until: Date | undefined;
}

export interface CategoryRead {
  after: { transactionId: number; globalPosition: number };
  limit: number;
}

export abstract class EventStore {
  private readonly check = new EventStoreChecks();
  private checkedSubscriptionStore: EventStoreSubscriptions | undefined;

  /** Leases, cursors and dead letters of event-store subscriptions, kept beside the events. */
  get subscriptions(): EventStoreSubscriptions {
    this.checkedSubscriptionStore ??= checkedSubscriptions(this.createSubscriptions());
    return this.checkedSubscriptionStore;
  }

  /** Appends `events` to `stream` inside `tx`; they become visible to others when `tx` commits. */
  async append(tx: ProviderTransaction, stream: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    this.check.stream('append', 'stream', stream);
    this.check.events('append', events);
    const expected = options?.expectedVersion;
    if (expected !== undefined) this.check.integer('append', 'expectedVersion', expected, -1);
    const attributes = () => ({
      attributes: {
        [SpanAttributes.stream]: stream,
        [SpanAttributes.eventCount]: events.length,
        ...(expected === undefined ? {} : { [SpanAttributes.expectedVersion]: expected }),
      },
    });
    return inSpan(SpanNames.eventStoreAppend, attributes, () => this._append(tx, stream, events, expected));
  }

  /** Events of one stream from a position, in stream order, one page at a time. */
  async readStream(stream: string, options: StreamReadOptions = {}, tx?: ProviderTransaction): Promise<StoredEvent[]> {
    this.check.stream('readStream', 'stream', stream);
    const from = options.from ?? 0;
    this.check.integer('readStream', 'from', from, 0);
    const limit = this.check.limit('readStream', options.limit ?? DEFAULT_PAGE_SIZE);
    if (options.until !== undefined) this.check.date('readStream', 'until', options.until);
    return this._readStream(stream, { from, limit, until: options.until }, tx);
  }

  /** Events of a category (`<domain>::<category>`) or of `$all` after a cursor, in reader order. */
  async readCategory(category: string, options: CategoryReadOptions = {}): Promise<CategoryPage> {
    this.check.category('readCategory', category);
    const after = options.after ?? START_CURSOR;
    this.check.cursor('readCategory', after);
    const limit = this.check.limit('readCategory', options.limit ?? DEFAULT_PAGE_SIZE);
    return pageOf(await this._readCategory(category, { after: { transactionId: after.transactionId, globalPosition: after.globalPosition }, limit }), after);
  }

  /**
   * Events of several categories after one cursor, in reader order: the events `$all` would
   * return, less those of other categories. Read in one go, so they are in the order a single
   * reader sees; per-category reads merged by the caller would each see the store at another
   * moment (on PostgreSQL, another horizon of ended transactions), and an event seen later in
   * one category could sort before events already taken from another.
   */
  async readCategories(categories: readonly string[], options: CategoryReadOptions = {}): Promise<CategoryPage> {
    const distinct = this.check.categories('readCategories', categories);
    const after = options.after ?? START_CURSOR;
    this.check.cursor('readCategories', after);
    const limit = this.check.limit('readCategories', options.limit ?? DEFAULT_PAGE_SIZE);
    const read = { after: { transactionId: after.transactionId, globalPosition: after.globalPosition }, limit };
    return pageOf(distinct.length === 1 ? await this._readCategory(distinct[0]!, read) : await this._readCategories(distinct, read), after);
  }

  /**
   * The cursor of the last committed event of these categories in reader order, whether or not
   * readers may take it yet; START_CURSOR when they have none. A read can come back empty while
   * later events exist (PostgreSQL holds back events of transactions at or above the oldest one
   * still open on the server: see ReaderCursor), so a reader that must see every event committed
   * so far (a projection rebuild, `protean-ts events read`) reads until its cursor reaches this
   * one. `[ALL_STREAMS]` alone: the last committed event of every stream, the end of `$all`.
   */
  async committedEnd(categories: readonly string[]): Promise<ReaderCursor> {
    if (categories.length === 1 && categories[0] === ALL_STREAMS) return (await this._committedEnd(null)) ?? START_CURSOR;
    const distinct = this.check.categories('committedEnd', categories);
    return (await this._committedEnd(distinct)) ?? START_CURSOR;
  }

  /** The position of the stream's last event; -1 when it has none. */
  async streamVersion(stream: string, tx?: ProviderTransaction): Promise<number> {
    this.check.stream('streamVersion', 'stream', stream);
    return this._streamVersion(stream, tx);
  }

  /**
   * The stream's last event (its position is the stream's version), or null when it has none: one
   * read where `streamVersion` then `readStream` would be two. In `tx`, its own appends count.
   */
  async lastEvent(stream: string, tx?: ProviderTransaction): Promise<StoredEvent | null> {
    this.check.stream('lastEvent', 'stream', stream);
    return this._lastEvent(stream, tx);
  }

  /**
   * Keeps the snapshot, sealed with its checksum, unless the stream already has one of the same
   * or a later version (`replace`: whatever the stream has).
   */
  async saveSnapshot(snapshot: NewSnapshot, tx?: ProviderTransaction, options: SaveSnapshotOptions = {}): Promise<void> {
    this.check.snapshot(snapshot);
    const { streamName, version, type, data } = snapshot;
    return this._saveSnapshot({ streamName, version, type, data, checksum: snapshotChecksum(snapshot) }, tx, options.replace === true);
  }

  /** The stream's latest snapshot, as stored (unchecked: the event-sourced repository checks it); null when none. */
  async latestSnapshot(stream: string, tx?: ProviderTransaction): Promise<Snapshot | null> {
    this.check.stream('latestSnapshot', 'stream', stream);
    return this._latestSnapshot(stream, tx);
  }

  /** The adapter's subscription store; called once, its methods receive checked arguments. */
  protected abstract createSubscriptions(): EventStoreSubscriptions;
  /** `events` is non-empty and checked; `expectedVersion` is undefined (no check) or >= -1. */
  protected abstract _append(tx: ProviderTransaction, stream: string, events: readonly NewEvent[], expectedVersion: number | undefined): Promise<AppendResult>;
  protected abstract _readStream(stream: string, read: StreamRead, tx: ProviderTransaction | undefined): Promise<StoredEvent[]>;
  /** Events after `read.after` in (transactionId, globalPosition) order, only of ended transactions. */
  protected abstract _readCategory(category: string, read: CategoryRead): Promise<StoredEvent[]>;
  /** The same over two or more distinct categories (never `$all`), as one read. */
  protected abstract _readCategories(categories: readonly string[], read: CategoryRead): Promise<StoredEvent[]>;
  /** The (transactionId, globalPosition) of the last committed event of distinct categories (null: of every stream), ignoring any horizon; null when none. */
  protected abstract _committedEnd(categories: readonly string[] | null): Promise<ReaderCursor | null>;
  protected abstract _streamVersion(stream: string, tx: ProviderTransaction | undefined): Promise<number>;
  protected abstract _lastEvent(stream: string, tx: ProviderTransaction | undefined): Promise<StoredEvent | null>;
  /** Keeps the snapshot if the stream has none of the same or a later version, or whatever it has when `replace`. */
  protected abstract _saveSnapshot(snapshot: SealedSnapshot, tx: ProviderTransaction | undefined, replace: boolean): Promise<void>;
  protected abstract _latestSnapshot(stream: string, tx: ProviderTransaction | undefined): Promise<Snapshot | null>;
}

function pageOf(events: StoredEvent[], after: ReaderCursor): CategoryPage {
  const last = events[events.length - 1];
  return { events, cursor: last ? { transactionId: last.transactionId, globalPosition: last.globalPosition } : after };
}
