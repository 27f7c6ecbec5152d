/**
 * `@useCase()` marks an application service method as an entry point of the application: it
 * runs inside `domain.uow(...)` of the domain the service is registered with, so everything it
 * saves commits together (or not at all when it throws), and a use case called from inside
 * another unit of work (another use case, a handler) joins that one.
 *
 * elements/ never imports domain/: each Domain hands its unit-of-work runner to
 * `bindUnitOfWorkRunner` for its registry, and a use case finds it through its class's host.
 */
import type { ClassRef } from '../fields/field-definition.js';
import { refuseStandardDecorator } from '../fields/decorator-settings.js';
import { RegistrationError } from '../errors/registration.error.js';
import { hostOf, type ElementHost } from './element-host.js';

export type UnitOfWorkRunner = <R>(work: () => Promise<R> | R) => Promise<R>;

const runners = new WeakMap<ElementHost, UnitOfWorkRunner>();

/** Called by each Domain for its registry. */
export function bindUnitOfWorkRunner(host: ElementHost, runner: UnitOfWorkRunner): void {
  runners.set(host, runner);
}

/** The runner of the domain `cls` (or the registered class it extends) belongs to. */
function runnerFor(cls: ClassRef): UnitOfWorkRunner | undefined {
  for (let current: unknown = cls; typeof current === 'function' && current !== Function.prototype; current = Object.getPrototypeOf(current)) {
    const host = hostOf(current as ClassRef);
    if (host) return runners.get(host);
  }
  return undefined;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AsyncMethod = (...args: any[]) => Promise<unknown>;

/** Runs the decorated method in a unit of work of the service's domain; the method returns a promise. */
export function useCase() {
  return <F extends AsyncMethod>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<F>): TypedPropertyDescriptor<F> => {
    refuseStandardDecorator('@useCase()', key);
    const method = descriptor.value;
    if (typeof method !== 'function') throw new TypeError(`@useCase() on ${target.constructor.name}.${String(key)} must decorate a method`);
    const inUnitOfWork = function (this: object, ...args: unknown[]): Promise<unknown> {
      const service = this?.constructor as ClassRef;
      const run = service && runnerFor(service);
      if (!run) {
        return Promise.reject(
          new RegistrationError(
            `${service?.name ?? 'this'}.${String(key)} is a @useCase, but ${service?.name} is not registered with a domain; decorate it with @domain.applicationService()`,
          ),
        );
      }
      return run(() => method.apply(this, args));
    };
    Object.defineProperty(inUnitOfWork, 'name', { value: method.name });
    return { ...descriptor, value: inUnitOfWork as F };
  };
}
