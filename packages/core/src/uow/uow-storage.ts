/**
 * Where the active unit of work lives: one AsyncLocalStorage for the process, so every
 * `await` inside `domain.uow(...)` (repositories, adapters, the outbox) sees the same unit
 * without passing it around. Each scope also carries the message context (correlation,
 * causation): a command handled inside an outer unit joins that unit but is its own cause.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { MessageContext } from '../elements/element-host.js';
import type { UnitOfWork } from './unit-of-work.js';

export interface UnitOfWorkScope {
  uow: UnitOfWork;
  context: MessageContext;
}

export const unitOfWorkStorage = new AsyncLocalStorage<UnitOfWorkScope>();

/** The unit of work the calling code runs in, or undefined outside `domain.uow(...)`. */
export function currentUnitOfWork(): UnitOfWork | undefined {
  const uow = unitOfWorkStorage.getStore()?.uow;
  return uow?.isActive ? uow : undefined;
}

/** The correlation data of the message being handled here, when inside a unit of work. */
export function currentMessageContext(): MessageContext | undefined {
  const scope = unitOfWorkStorage.getStore();
  return scope?.uow.isActive ? scope.context : undefined;
}
