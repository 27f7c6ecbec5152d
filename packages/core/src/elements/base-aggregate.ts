/**
 * The consistency boundary: an entity that is loaded and saved as a whole, carries a version
 * for optimistic concurrency, and keeps the events it raises until the unit of work commits.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { BuildMode } from '../fields/field-coercion.js';
import { BaseEntity } from './base-entity.js';
import type { BaseEvent } from './base-event.js';
import { AFTER_BUILD, installHooks, type ElementHooks, type FromPlainOptions } from './element-hooks.js';
import { stateOf } from './element-state.js';
import { stampRaisedEvent } from './raise-event.js';
import { isEventSourcedAggregate, raiseOnEventSourced } from './event-sourced-change.js';

export abstract class BaseAggregate extends BaseEntity {
  /**
   * -1 for an aggregate never saved; the stored version after a save (0 after the first). An
   * event-sourced aggregate's version is the position of its last event, raised ones included.
   */
  get _version(): number {
    return stateOf(this).version;
  }

  /**
   * Records `event` as raised by this aggregate: stamps its metadata (type, stream, sequence,
   * correlation) and keeps it until the unit of work commits. Returns the stamped event.
   */
  override raise<E extends BaseEvent>(event: E): E {
    // An event-sourced aggregate changes by applying the event through its @apply method.
    if (isEventSourcedAggregate(this)) return raiseOnEventSourced(this, event);
    const stamped = stampRaisedEvent(this, event, stateOf(this).events.length);
    stateOf(this).events.push(stamped);
    return stamped;
  }

  /** Events raised since the last commit, in order. */
  pendingEvents(): readonly BaseEvent[] {
    return [...(stateOf(this).events as BaseEvent[])];
  }

  clearPendingEvents(): void {
    stateOf(this).events.length = 0;
  }
}

const entityAfterBuild = (BaseEntity.prototype as unknown as ElementHooks)[AFTER_BUILD];
installHooks(BaseAggregate.prototype, {
  [AFTER_BUILD](this: BaseAggregate, mode: BuildMode, options: FromPlainOptions): void {
    entityAfterBuild.call(this, mode, options);
    stateOf(this).version = mode === 'plain' && options.version !== undefined ? options.version : -1;
  },
});

/** Called by the unit of work after a successful save; keeps `_version` read-only for users. */
export function markPersisted(aggregate: BaseAggregate, version: number): void {
  if (!Number.isInteger(version) || version < 0) throw new RangeError(`markPersisted: version must be an integer >= 0, got ${version}`);
  stateOf(aggregate).version = version;
}

export type AggregateClass<T extends BaseAggregate = BaseAggregate> = ClassRef<T>;
