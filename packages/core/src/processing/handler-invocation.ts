/**
 * Calls handler methods: a fresh handler instance per message, the method looked up by name,
 * and the correlation a unit of work started for that message should carry.
 */
import type { MessageContext } from '../elements/element-host.js';
import type { MessageMetadata } from '../messages/envelope.js';
import type { ClassRef } from '../fields/field-definition.js';

type HandlerMethod = (message: unknown) => unknown;

export async function invokeHandler(cls: ClassRef, method: string, message: unknown): Promise<unknown> {
  const instance = new cls() as Record<string, unknown>;
  const fn = instance[method];
  if (typeof fn !== 'function') throw new TypeError(`${cls.name}.${method} is not a method; @handle must decorate a method`);
  return (fn as HandlerMethod).call(instance, message);
}

/** Work done for a message is correlated with it, and caused by it. */
export function contextOf(metadata: MessageMetadata | undefined): Partial<MessageContext> {
  if (!metadata) return {};
  return {
    correlationId: metadata.domain.correlationId ?? metadata.headers.id,
    causationId: metadata.headers.id,
    traceparent: metadata.headers.traceparent ?? null,
    tracestate: metadata.headers.tracestate ?? null,
  };
}
