/**
 * The consistency boundary: an entity that is loaded and saved as a whole, carries a version
 * for optimistic concurrency, and keeps the events it raises until the unit of work commits.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { BuildMode } from '../fields/field-coercion.js';
import { BaseEntity } from './base-entity.js';
import type { BaseEvent } from './base-event.js';
import { AFTER_BUILD, type FromPlainOptions } from './element-hooks.js';
import { STATE } from './element-state.js';
import { stampRaisedEvent } from './raise-event.js';

export abstract class BaseAggregate extends BaseEntity {
  /** -1 for an aggregate never saved; the stored version after a save (0 after the first). */
  get _version(): number {
    return this[STATE].version;
  }

  /**
   * Records `event` as raised by this aggregate: stamps its metadata (type, stream, sequence,
   * correlation) and keeps it until the unit of work commits. Returns the stamped event.
   */
  override raise<E extends BaseEvent>(event: E): E {
    const stamped = stampRaisedEvent(this, event, this[STATE].events.length);
    this[STATE].events.push(stamped);
    return stamped;
  }

  /** Events raised since the last commit, in order. */
  pendingEvents(): readonly BaseEvent[] {
    return [...(this[STATE].events as BaseEvent[])];
  }

  clearPendingEvents(): void {
    this[STATE].events.length = 0;
  }

  override [AFTER_BUILD](mode: BuildMode, options: FromPlainOptions): void {
    super[AFTER_BUILD](mode, options);
    this[STATE].version = mode === 'plain' && options.version !== undefined ? options.version : -1;
  }
}

/** Called by the unit of work after a successful save; keeps `_version` read-only for users. */
export function markPersisted(aggregate: BaseAggregate, version: number): void {
  if (!Number.isInteger(version) || version < 0) throw new RangeError(`markPersisted: version must be an integer >= 0, got ${version}`);
  aggregate[STATE].version = version;
}

export type AggregateClass<T extends BaseAggregate = BaseAggregate> = ClassRef<T>;
