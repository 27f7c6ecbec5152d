/**
 * `@apply(EventClass)` marks the method of an event-sourced aggregate that changes its state for
 * one event. `raise` calls it (invariants checked) and loading replays stored events through it
 * (invariants off), so the same code builds the state whether the event is new or old.
 */
import 'reflect-metadata';
import type { ClassRef } from '../fields/field-definition.js';
import { refuseStandardDecorator } from '../fields/decorator-settings.js';

const APPLIERS = Symbol('protean:appliers');

export interface ApplyMark {
  event: ClassRef;
  method: string;
}

type ApplyMethod<E> = (event: E) => void;

/** What `@apply` was given: the event class, or an arrow function returning it (for events declared after the aggregate). */
type EventRef<E> = ClassRef<E> | (() => ClassRef<E>);

interface StoredMark {
  event: EventRef<unknown>;
  method: string;
}

// Classes have a `prototype`; arrow functions do not, so `() => Deposited` is told apart from `Deposited`.
const isLazy = (ref: EventRef<unknown>): ref is () => ClassRef<unknown> => typeof ref === 'function' && !Object.hasOwn(ref, 'prototype');

export function apply<E>(event: EventRef<E>) {
  // The method's parameter is checked against the event class, so `@apply(A) onB(e: B)` does not compile.
  return <F extends ApplyMethod<E>>(target: object, key: string | symbol, _descriptor: TypedPropertyDescriptor<F>): void => {
    refuseStandardDecorator(`@apply(${typeof event === 'function' && !isLazy(event) ? event.name : '...'})`, key);
    if (typeof key !== 'string') throw new TypeError(`@apply methods must have string names, got ${String(key)}`);
    if (typeof event !== 'function') {
      throw new TypeError(
        `@apply on ${target.constructor.name}.${key} needs an event class (or () => EventClass), got ${String(event)} (check for an import cycle)`,
      );
    }
    const own: StoredMark[] = Reflect.getOwnMetadata(APPLIERS, target) ?? [];
    Reflect.defineMetadata(APPLIERS, [...own, { event, method: key }], target);
  };
}

/** Apply marks of `cls`, inherited first, lazy event references resolved. */
export function applyMarksOf(cls: ClassRef): ApplyMark[] {
  const chain: object[] = [];
  for (let p: object | null = cls.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) chain.unshift(p);
  return chain.flatMap((proto) =>
    ((Reflect.getOwnMetadata(APPLIERS, proto) ?? []) as StoredMark[]).map((mark) => ({
      method: mark.method,
      event: (isLazy(mark.event) ? mark.event() : mark.event) as ClassRef,
    })),
  );
}

/**
 * Appliers resolved per aggregate class and event class. `raise` and every replayed event ask,
 * and resolving walks the prototype chain's metadata (about 0.7 µs an event); a class's marks
 * are fixed once it is defined, and a subclass is a key of its own.
 */
const resolvedAppliers = new WeakMap<ClassRef, Map<ClassRef, string | undefined>>();

/** The method applying `event` on `cls` (the most derived one), or undefined. */
export function applierFor(cls: ClassRef, event: ClassRef): string | undefined {
  let byEvent = resolvedAppliers.get(cls);
  if (!byEvent) {
    byEvent = new Map();
    resolvedAppliers.set(cls, byEvent);
  }
  if (byEvent.has(event)) return byEvent.get(event);
  const method = applyMarksOf(cls)
    .filter((mark) => mark.event === event)
    .at(-1)?.method;
  byEvent.set(event, method);
  return method;
}
