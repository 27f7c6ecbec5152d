/**
 * What a database keeps about the projections stored in it: one status row per projection
 * (`protean_projections` on PostgreSQL, created with the outbox tables), saying whether it is
 * being rebuilt and how the last rebuild went.
 *
 * The row is also the rebuild's barrier: every projector transaction holds it shared
 * (`holdForProjector`) until it commits, and `markRebuilding` takes it exclusively, so the mark
 * lands only after projector transactions in flight have finished, and every later one sees it.
 */
import type { AggregateSchema } from './aggregate-dao.js';
import type { ProviderTransaction } from './provider-transaction.js';
import type { ReaderCursor } from './event-store-records.js';

export interface ProjectionState {
  /** The projection's class name. */
  projection: string;
  /** True from `projection rebuild`'s start until it finishes; projector subscriptions wait meanwhile. */
  rebuilding: boolean;
  rebuildStartedAt: Date | null;
  rebuiltAt: Date | null;
  /** Events the last finished rebuild applied; null before any. */
  eventsApplied: number | null;
  /**
   * Where in the event store the last finished rebuild stopped reading; null before any. Every
   * followed event up to it is applied (and in the projector subscriptions' inboxes).
   */
  rebuiltThrough: ReaderCursor | null;
}

export interface ProjectionStatusStore {
  /**
   * In a projector's transaction, before it writes: creates the projection's row on first use
   * and holds it shared until the transaction ends. True when the projection is being rebuilt
   * (the projector must not write; its subscription waits).
   */
  holdForProjector(tx: ProviderTransaction, projection: string): Promise<boolean>;
  /** Marks the projection as being rebuilt, once projector transactions in flight have ended. */
  markRebuilding(projection: string): Promise<void>;
  /** Ends the rebuild: projector subscriptions resume. */
  markRebuilt(projection: string, eventsApplied: number, through: ReaderCursor): Promise<void>;
  /** The projection's state; null when no projector or rebuild has touched it yet. */
  state(projection: string): Promise<ProjectionState | null>;
  /** Empties the projection's tables (the rebuild's first step); auto-commit. */
  truncate(schema: AggregateSchema): Promise<void>;
}
