/**
 * `@on(EventClass)` marks a projector method. It records the same mark as `@handle`, so a
 * projector's methods are routed by message type like an event handler's; `domain.init()`
 * refuses a mark that names anything but a registered event.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { BaseEvent } from './base-event.js';
import { handle } from './handle.js';

export function on<E extends BaseEvent>(event: ClassRef<E>) {
  return handle<E>(event);
}
