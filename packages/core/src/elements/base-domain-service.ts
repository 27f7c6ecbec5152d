/**
 * A domain rule that spans aggregates and belongs to none of them (placing an order reserves
 * stock of an inventory). As in Protean, a service is built around the aggregates it works on,
 * `new PlaceOrder(order, inventory)`, and guards them with invariants like an aggregate does:
 * each public method runs the `@invariant.pre()` methods before it and the `@invariant.post()`
 * methods after it (after the promise settles, for an async method), and a failing invariant
 * throws the ValidationError an aggregate would.
 *
 * Public means: a method on the subclass's prototype whose name does not start with `_`, and
 * that is not itself an invariant. Methods calling each other check the invariants once, around
 * the outermost call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClassRef } from '../fields/field-definition.js';
import type { BaseAggregate } from './base-aggregate.js';
import { checkInvariants, invariantsOf } from './invariant.js';

const wrappedPrototypes = new WeakSet<object>();
// The services whose guarded method is running in this async context: nested calls of their
// public methods skip the checks, concurrent calls from elsewhere do not.
const guardedServices = new AsyncLocalStorage<ReadonlySet<object>>();

export abstract class BaseDomainService {
  /** The aggregates this service was built around, in the order given. */
  protected readonly aggregates: readonly BaseAggregate[];

  constructor(...aggregates: BaseAggregate[]) {
    this.aggregates = aggregates;
    guardPublicMethods(new.target as unknown as ClassRef);
  }
}

function isInvariant(cls: ClassRef, name: string): boolean {
  return invariantsOf(cls, 'pre').includes(name) || invariantsOf(cls, 'post').includes(name);
}

/** Wraps the public methods of `cls` and its service bases once, on their prototypes. */
function guardPublicMethods(cls: ClassRef): void {
  for (let proto: object | null = cls.prototype; proto && proto !== BaseDomainService.prototype; proto = Object.getPrototypeOf(proto)) {
    if (wrappedPrototypes.has(proto)) continue;
    wrappedPrototypes.add(proto);
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || name.startsWith('_')) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (!descriptor || typeof descriptor.value !== 'function' || isInvariant(proto.constructor as ClassRef, name)) continue;
      Object.defineProperty(proto, name, { ...descriptor, value: withInvariants(descriptor.value as (...args: unknown[]) => unknown) });
    }
  }
}

function withInvariants(method: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  const guarded = function (this: BaseDomainService, ...args: unknown[]): unknown {
    const inside = guardedServices.getStore();
    if (inside?.has(this)) return method.apply(this, args);
    // The invariants run inside the guarded scope too, so an invariant may call public helpers.
    return guardedServices.run(new Set(inside).add(this), () => {
      checkInvariants(this, 'pre');
      const result = method.apply(this, args);
      if (!(result instanceof Promise)) {
        checkInvariants(this, 'post');
        return result;
      }
      return result.then((value: unknown) => {
        checkInvariants(this, 'post');
        return value;
      });
    });
  };
  Object.defineProperty(guarded, 'name', { value: method.name });
  return guarded;
}
