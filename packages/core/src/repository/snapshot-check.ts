/**
 * Whether a stored snapshot may stand in for replaying its stream. A snapshot is only a cache of
 * its events, so one that is not the stream's own, not of this aggregate's shape, or not as its
 * checksum says it was written is ignored (the repository rebuilds from the events instead).
 * These are the checks that need no read; the repository runs them, with the stream-version check
 * between them (so the reason names what was changed), then builds the aggregate from the data.
 */
import { isPlainObject } from '../fields/describe-value.js';
import type { Snapshot } from '../ports/event-store-records.js';
import { snapshotChecksum } from '../ports/snapshot-checksum.js';

export interface SnapshotOwner {
  /** The stream the snapshot was read from. */
  stream: string;
  /** The snapshot type the aggregate writes (`Domain.Class.v1`). */
  type: string;
  identityField: string;
  id: string;
}

/** Why the snapshot is not this stream's snapshot of this aggregate, or undefined. */
export function ownershipProblem(snapshot: Snapshot, owner: SnapshotOwner): string | undefined {
  if (snapshot.streamName !== owner.stream) return `it is the snapshot of stream ${snapshot.streamName}`;
  if (snapshot.type !== owner.type) return `its type ${snapshot.type} is not ${owner.type}`;
  if (!isPlainObject(snapshot.data)) return 'its data is not an object';
  const id = snapshot.data[owner.identityField];
  if (id === undefined || id === null || String(id) !== owner.id) {
    return `its aggregate id ${JSON.stringify(id) ?? 'undefined'} is not the stream's (${JSON.stringify(owner.id)}): it was copied from another aggregate`;
  }
  return undefined;
}

/** Why the snapshot is not as it was written (checksum missing or not matching), or undefined. */
export function checksumProblem(snapshot: Snapshot): string | undefined {
  if (snapshot.checksum === null) return 'it has no checksum (written before snapshots carried one), so it cannot be verified';
  if (snapshot.checksum !== snapshotChecksum(snapshot)) return 'its checksum does not match its content: it was altered after it was written';
  return undefined;
}
