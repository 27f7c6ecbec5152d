/**
 * How events are compared in assertions: by class name and data (the fields as `toPlain()`
 * gives them), never by metadata (ids, times, sequences differ on every run). An expected entry
 * that is a class only checks the type.
 */
import type { BaseEvent } from '@protean-ts/core';

/** An expected event: an instance (type and data must match) or its class (the type alone). */
export type ExpectedEvent = BaseEvent | (abstract new (...args: never[]) => BaseEvent);

export interface EventView {
  type: string;
  data?: Record<string, unknown>;
}

export function viewOf(event: BaseEvent): Required<EventView> {
  return { type: event.constructor.name, data: event.toPlain() };
}

export function expectedViewOf(expected: ExpectedEvent): EventView {
  return typeof expected === 'function' ? { type: expected.name } : viewOf(expected);
}

/** The actual events seen the way the expectation looks at them: data left out where only a type is expected. */
export function actualViewsFor(actual: readonly BaseEvent[], expected: readonly ExpectedEvent[]): EventView[] {
  return actual.map((event, i) => {
    const view = viewOf(event);
    return typeof expected[i] === 'function' ? { type: view.type } : view;
  });
}
