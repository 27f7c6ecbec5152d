/**
 * The shapes of what a memory transaction stages until commit (table writes, stream appends,
 * inbox writes) and of the records it writes, in one file below the stores and the transaction
 * that all use them.
 */
import type { NewEvent } from '../../ports/event-store-records.js';

export type PlainRecord = Record<string, unknown>;

export interface MemoryRecord {
  id: string;
  version: number;
  data: PlainRecord;
}

/** A staged insert/update; `baseVersion` is the committed version it was based on (null when absent). */
export interface StagedPut {
  kind: 'put';
  record: MemoryRecord;
  baseVersion: number | null;
  /** Used in error messages and for unique checks at commit. */
  aggregate: string;
  uniqueFields: readonly string[];
}

export interface StagedDelete {
  kind: 'delete';
  baseVersion: number | null;
}

export type StagedWrite = StagedPut | StagedDelete;

/** The events one transaction appends to one stream, with the committed version they follow. */
export interface StagedStreamAppend {
  /** The stream's committed version when the transaction first appended to it. */
  baseVersion: number;
  /** True when an append gave an expected version: then the base must still hold at commit. */
  checked: boolean;
  events: NewEvent[];
}

/** A checkpoint move or message record staged by `enter`, checked and applied at commit. */
export interface StagedInboxWrite {
  /** Throws ExpectedVersionError when the committed state no longer allows the write. */
  check(): void;
  apply(): void;
  /** For a checkpoint move: the key and the sequence it moves to, so later enters of the same unit see it. */
  move?: { checkpointKey: string; sequence: number };
}
