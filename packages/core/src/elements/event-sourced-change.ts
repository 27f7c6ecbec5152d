/**
 * How an event-sourced aggregate changes: `raise` applies the event through its `@apply` method
 * as one atomic change (invariants checked, nothing kept when it fails) and bumps the version;
 * replaying stored events runs the same methods with invariants off (stored history was valid
 * when written). Field assignments outside an `@apply` method are refused.
 */
import type { ClassRef } from '../fields/field-definition.js';
import { EventSourcedChangeError } from '../errors/event-sourced-change.error.js';
import { ReadOnlyAggregateError } from '../errors/read-only-aggregate.error.js';
import { applierFor } from './apply.js';
import { hostOf } from './element-host.js';
import { identityValue } from './element-builder.js';
import { stateOf } from './element-state.js';
import { atomicChange, rootOf } from './entity-change.js';
import { stampRaisedEvent } from './raise-event.js';
import type { BaseEvent } from './base-event.js';

/** Aggregates inside an `@apply` call (a counter, since an apply may raise nothing but nests calls). */
const applying = new WeakMap<object, number>();
/** Aggregates loaded as of a past version or time. */
const readOnly = new WeakSet<object>();

export function isEventSourcedAggregate(aggregate: object): boolean {
  const cls = aggregate.constructor as ClassRef;
  return hostOf(cls)?.isEventSourced(cls) === true;
}

export function markReadOnly(aggregate: object): void {
  readOnly.add(aggregate);
}

export function isReadOnly(aggregate: object): boolean {
  return readOnly.has(aggregate);
}

export function assertWritable(aggregate: object, operation: string): void {
  if (readOnly.has(aggregate)) throw new ReadOnlyAggregateError(aggregate.constructor.name, identityValue(aggregate) ?? '?', operation);
}

/** Called before every field assignment of an entity: refused on an event-sourced aggregate outside @apply. */
export function assertChangeThroughApply(entity: object, field: string): void {
  const root = rootOf(entity);
  if (!isEventSourcedAggregate(root) || (applying.get(root) ?? 0) > 0) return;
  const name = root.constructor.name;
  throw new EventSourcedChangeError(
    name,
    `${name} is event-sourced: ${entity.constructor.name}.${field} can only change inside an @apply method; raise an event and set the field in its @apply(Event) method`,
  );
}

/** `raise` on an event-sourced aggregate: stamp, apply (invariants checked), keep, bump the version. */
export function raiseOnEventSourced<E extends BaseEvent>(aggregate: object, event: E): E {
  assertWritable(aggregate, `raise ${event?.constructor?.name}`);
  const state = stateOf(aggregate);
  // Each event is one version of an event-sourced aggregate: sequence `<its version>.1`.
  const stamped = stampRaisedEvent(aggregate, event, 0);
  const method = requireApplier(aggregate, stamped);
  atomicChange(aggregate, () => {
    callApplier(aggregate, method, stamped);
    state.events.push(stamped);
  });
  state.version += 1;
  return stamped;
}

/** Replays stored events onto `aggregate` with invariants off; `version` is the last event's position. */
export function replayEvents(aggregate: object, events: readonly BaseEvent[], version: number): void {
  const state = stateOf(aggregate);
  // While atomicDepth > 0 assignments skip invariant checks, which replay must not run.
  state.atomicDepth += 1;
  try {
    for (const event of events) callApplier(aggregate, requireApplier(aggregate, event), event);
  } finally {
    state.atomicDepth -= 1;
  }
  state.version = version;
}

function requireApplier(aggregate: object, event: BaseEvent): string {
  const cls = aggregate.constructor as ClassRef;
  const method = applierFor(cls, event.constructor as ClassRef);
  if (!method) {
    throw new EventSourcedChangeError(
      cls.name,
      `${cls.name} is event-sourced but has no @apply(${event.constructor.name}) method; add one that sets the state the event describes`,
    );
  }
  return method;
}

function callApplier(aggregate: object, method: string, event: BaseEvent): void {
  applying.set(aggregate, (applying.get(aggregate) ?? 0) + 1);
  try {
    const result = (aggregate as Record<string, (e: BaseEvent) => unknown>)[method]!(event);
    if (result && typeof (result as { then?: unknown }).then === 'function') {
      throw new TypeError(`${aggregate.constructor.name}.${method} is an @apply method and must be synchronous; do the awaiting before raising the event`);
    }
  } finally {
    applying.set(aggregate, applying.get(aggregate)! - 1);
  }
}
