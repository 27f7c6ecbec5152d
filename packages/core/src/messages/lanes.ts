/**
 * Priority lanes: every message travels in one, `live` unless its producer or its element says
 * otherwise. With `[outbox.lanes] enabled`, a lane besides `live` has a stream of its own on the
 * broker, `<stream>:<lane>`, so a backfill queues there and not in front of live messages.
 */
import { LANE_NAME, LIVE_LANE } from '../config/check-lanes.js';
import type { OutboxLanesConfig } from '../config/config-types.js';
import { UnknownLaneError } from '../errors/unknown-lane.error.js';

export { LANE_NAME, LIVE_LANE };

/** The broker stream of `stream`'s lane: the stream itself for `live`, `<stream>:<lane>` for any other. */
export function laneStream(stream: string, lane: string): string {
  return lane === LIVE_LANE ? stream : `${stream}:${lane}`;
}

/** The lanes a subscription of `stream` reads, live first: just `live` while lanes are off. */
export function lanesRead(lanes: Pick<OutboxLanesConfig, 'enabled' | 'names'>): string[] {
  return lanes.enabled ? [LIVE_LANE, ...lanes.names.filter((name) => name !== LIVE_LANE)] : [LIVE_LANE];
}

/**
 * The outbox row's `priority` for a lane: live rows first in a claimed batch (0), every other
 * lane after them (-1), so the relay publishes a claim's live rows before its backfill rows.
 */
export function lanePriority(lane: string): number {
  return lane === LIVE_LANE ? 0 : -1;
}

/** `lane` when `live` or one of `[outbox.lanes] names`; otherwise an UnknownLaneError naming `where`. */
export function checkedLane(lane: unknown, lanes: Pick<OutboxLanesConfig, 'names'>, where: string): string {
  if (lane === LIVE_LANE || (typeof lane === 'string' && lanes.names.includes(lane))) return lane;
  throw new UnknownLaneError(lane, [LIVE_LANE, ...lanes.names], where);
}
