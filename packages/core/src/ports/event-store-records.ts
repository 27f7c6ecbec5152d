/**
 * What the event store keeps and hands back: events as appended (`NewEvent`) and as stored
 * (`StoredEvent`), the cursor of category and `$all` readers, and snapshots.
 */

/** An event to append; the store assigns its positions and time. */
export interface NewEvent {
  /** Unique message id (the envelope's `headers.id`). */
  messageId: string;
  /** `<Domain>.<Class>.v<N>`, e.g. `Shop.OrderPlaced.v1`: what upcasters and handlers dispatch on. */
  type: string;
  data: Record<string, unknown>;
  /** The envelope's headers and domain metadata (correlation, causation, expected version…). */
  metadata?: Record<string, unknown>;
}

export interface StoredEvent {
  /** Position among all events of the store; increasing but with gaps (rolled-back appends). */
  globalPosition: number;
  /** Position in its stream: 0 for the first event, then +1 per event, without gaps. */
  position: number;
  /** When it was written. */
  time: Date;
  messageId: string;
  /** `<domain>::<category>-<id>`. */
  streamName: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /**
   * The writing transaction (a PostgreSQL `xid8`; the commit number in memory). With
   * `globalPosition` it is the event's place in reader order: see `ReaderCursor`.
   */
  transactionId: number;
}

/**
 * Where a category or `$all` reader stands: the last event it has read. Readers return events in
 * (transactionId, globalPosition) order, and only events of transactions that have ended (so none
 * can still appear before the cursor): a reader never skips a committed event, even when a
 * transaction holding a lower global position commits after one holding a higher one.
 * Both numbers are safe integers; keep the pair (e.g. two bigint columns) as a checkpoint.
 */
export interface ReaderCursor {
  readonly transactionId: number;
  readonly globalPosition: number;
}

/** Before the first event: a reader starting here reads everything. */
export const START_CURSOR: ReaderCursor = Object.freeze({ transactionId: 0, globalPosition: 0 });

/** The cursor that stands on `event`: reading after it returns the events that follow it. */
export function cursorOf(event: StoredEvent): ReaderCursor {
  return { transactionId: event.transactionId, globalPosition: event.globalPosition };
}

export interface AppendOptions {
  /**
   * The stream's version the caller based its events on: -1 for a new stream, the position of
   * its last event otherwise. Absent: no check (the events go after whatever is there).
   */
  expectedVersion?: number;
}

export interface AppendResult {
  /** The stream's version after this append, as the appending transaction sees it. */
  version: number;
}

export interface StreamReadOptions {
  /** The first stream position to return (default 0). */
  from?: number;
  /** Page size (default DEFAULT_PAGE_SIZE); a shorter page is the end of the stream. */
  limit?: number;
  /** Only events written at or before this time (as-of loads). */
  until?: Date;
}

export interface CategoryReadOptions {
  /** Return the events after this cursor (default START_CURSOR). */
  after?: ReaderCursor;
  /** Page size (default DEFAULT_PAGE_SIZE). */
  limit?: number;
}

export interface CategoryPage {
  events: StoredEvent[];
  /** The cursor after the last event returned (the given one when the page is empty). */
  cursor: ReaderCursor;
}

export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 10_000;

export interface NewSnapshot {
  streamName: string;
  /** The stream version (position of the last event) the snapshot reflects. */
  version: number;
  /** What produced the data (e.g. `Shop.Order.v1`), so a changed aggregate shape can ignore old snapshots. */
  type: string;
  data: Record<string, unknown>;
}

/** What adapters keep: the snapshot with the checksum `EventStore.saveSnapshot` computed over it (snapshot-checksum.ts). */
export interface SealedSnapshot extends NewSnapshot {
  checksum: string;
}

export interface Snapshot extends NewSnapshot {
  time: Date;
  /** sha256 of the snapshot's stream name, version, type and data; null for snapshots written before snapshots carried one. */
  checksum: string | null;
}

export interface SaveSnapshotOptions {
  /** Keep this snapshot whatever the stream has (a repository replacing a snapshot it found bad), not only over an older one. */
  replace?: boolean;
}
