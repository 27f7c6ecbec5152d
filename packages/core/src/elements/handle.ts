/**
 * `@handle(MessageClass)` marks a handler method. The registry reads the marks to route
 * messages by type; a class may mark several methods, one per message class.
 */
import 'reflect-metadata';
import type { ClassRef } from '../fields/field-definition.js';
import { refuseStandardDecorator } from '../fields/decorator-settings.js';

const HANDLES = Symbol('protean:handles');

export interface HandleMark {
  message: ClassRef;
  method: string;
  /** Process managers only: how the message finds its instance, and whether it starts or ends it. */
  options?: HandleOptions;
}

/**
 * Options of `@handle` in a process manager. `correlate` names the event field whose value
 * identifies the instance (the manager keeps it in a field of the same name), or maps an event
 * field to the manager field: `{ paymentOrderId: 'orderId' }`.
 */
export interface HandleOptions {
  start?: boolean;
  end?: boolean;
  correlate?: string | Readonly<Record<string, string>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type HandlerMethod<M> = (message: M, ...rest: any[]) => unknown;

export function handle<M>(message: ClassRef<M>, options?: HandleOptions) {
  // The descriptor's method type is inferred and checked against the message, so a handler
  // method taking another message class does not compile (protected methods included).
  return <F extends HandlerMethod<M>>(target: object, key: string | symbol, _descriptor: TypedPropertyDescriptor<F>): void => {
    refuseStandardDecorator(`@handle(${typeof message === 'function' ? message.name : '?'})`, key);
    if (typeof key !== 'string') throw new TypeError(`@handle methods must have string names, got ${String(key)}`);
    if (typeof message !== 'function') {
      throw new TypeError(`@handle on ${target.constructor.name}.${key} needs a message class, got ${String(message)} (check for an import cycle)`);
    }
    const own: HandleMark[] = Reflect.getOwnMetadata(HANDLES, target) ?? [];
    Reflect.defineMetadata(HANDLES, [...own, options === undefined ? { message, method: key } : { message, method: key, options }], target);
  };
}

/** Handle marks of `cls`, inherited first. */
export function handleMarksOf(cls: ClassRef): HandleMark[] {
  const chain: object[] = [];
  for (let p: object | null = cls.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) chain.unshift(p);
  return chain.flatMap((proto) => (Reflect.getOwnMetadata(HANDLES, proto) ?? []) as HandleMark[]);
}
