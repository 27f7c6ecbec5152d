/**
 * Where the active unit of work lives: one AsyncLocalStorage for the process, so every
 * `await` inside `domain.uow(...)` (repositories, adapters, the outbox) sees the same unit
 * without passing it around.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { UnitOfWork } from './unit-of-work.js';

export const unitOfWorkStorage = new AsyncLocalStorage<UnitOfWork>();

/** The unit of work the calling code runs in, or undefined outside `domain.uow(...)`. */
export function currentUnitOfWork(): UnitOfWork | undefined {
  const uow = unitOfWorkStorage.getStore();
  return uow?.isActive ? uow : undefined;
}
