/**
 * A read model: fields and an identifier like an aggregate, stored as a row on a database
 * provider, written only by its projectors and read through `domain.viewFor(P)`. It reacts to
 * events; it never raises them.
 */
import { BaseAggregate } from './base-aggregate.js';
import type { BaseEvent } from './base-event.js';
import { ProjectionRaiseError } from '../errors/projection-raise.error.js';

export abstract class BaseProjection extends BaseAggregate {
  // Makes projection types nominal, so `domain.viewFor(SomeAggregate)` does not type-check.
  declare protected readonly isProjection: true;

  /** Always refused: a projection is derived from events, it does not produce them. */
  override raise<E extends BaseEvent>(event: E): E {
    throw new ProjectionRaiseError(this.constructor.name, event?.constructor?.name ?? String(event));
  }
}
