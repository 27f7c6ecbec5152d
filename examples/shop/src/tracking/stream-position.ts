/**
 * Where an event stands in its aggregate's stream. An event is stamped, when raised, with the
 * aggregate version it was raised against; the change it reports is stored as the next version.
 * Every change of an Order is saved on its own and raises one event, so its events sit at
 * positions 0, 1, 2, … without gaps.
 */
import type { BaseEvent } from '@protean-ts/core';

export function streamPosition(event: BaseEvent): number {
  const raisedAgainst = event._metadata?.domain.expectedVersion;
  if (typeof raisedAgainst !== 'number') {
    throw new TypeError(`${event.constructor.name} carries no aggregate version; only events raised by an aggregate have a stream position`);
  }
  return raisedAgainst + 1;
}
