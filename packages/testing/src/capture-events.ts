/**
 * Captures the events a domain commits while a test runs (every unit of work: commands,
 * handlers, your own `domain.uow`), in commit order, for assertions.
 */
import type { BaseEvent, ClassRef, Domain } from '@protean-ts/core';
import { assertEvents } from './assertions.js';
import type { ExpectedEvent } from './event-view.js';

export interface CapturedEvents {
  /** Every event committed since the capture started (or was cleared), oldest first. */
  readonly events: readonly BaseEvent[];
  /** The captured events of one class. */
  ofType<E extends BaseEvent>(cls: ClassRef<E>): E[];
  /** Asserts the captured events are exactly these, in order (instances: type and data; classes: type). */
  assert(expected: readonly ExpectedEvent[]): void;
  clear(): void;
  /** Stops capturing; the events so far stay readable. */
  stop(): void;
}

export function captureEvents(domain: Domain): CapturedEvents {
  const events: BaseEvent[] = [];
  const stop = domain.runtime.events.onCommitted((committed) => void events.push(...committed));
  return {
    events,
    ofType: <E extends BaseEvent>(cls: ClassRef<E>) => events.filter((event): event is E => event instanceof cls),
    assert: (expected) => assertEvents(events, expected, 'captured events'),
    clear: () => void (events.length = 0),
    stop,
  };
}
