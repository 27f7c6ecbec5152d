/**
 * `domain.handleMessage(envelope)`: what stream subscriptions call for each delivered message.
 * It deserializes the envelope (checksum checked) and runs the registered handlers of its type,
 * each in its own unit of work; `handler` limits the run to one handler class (one subscription).
 */
import type { HandlerBinding } from '../domain/registry.js';
import type { MessageContext } from '../elements/element-host.js';
import { HandlerNotFoundError } from '../errors/handler-not-found.error.js';
import type { ClassRef } from '../fields/field-definition.js';
import type { MessageEnvelope } from '../messages/envelope.js';
import { contextOf, invokeHandler } from './handler-invocation.js';
import { retryOnConflict } from './retry-on-conflict.js';

export interface HandleMessageOptions {
  /** Run only this handler class (the subscription's); other handlers of the type are left alone. */
  handler?: ClassRef;
}

/** `skipped`: no handler here handles this message (the subscription acks it without work). */
export type HandleOutcome = 'handled' | 'skipped';

export interface MessageHandlingHost {
  readonly domainName: string;
  handlersFor(type: string): readonly HandlerBinding[];
  deserialize(envelope: MessageEnvelope): unknown;
  freshUnitOfWork(work: () => Promise<unknown>, context: Partial<MessageContext>): Promise<unknown>;
}

export async function handleMessage(host: MessageHandlingHost, envelope: MessageEnvelope, options: HandleMessageOptions = {}): Promise<HandleOutcome> {
  const message = host.deserialize(envelope);
  const { kind } = envelope.metadata.domain;
  const type = envelope.metadata.headers.type;
  const wanted = kind === 'COMMAND' ? 'commandHandler' : 'eventHandler';
  let bindings = host.handlersFor(type).filter((b) => b.record.kind === wanted);
  if (kind === 'COMMAND' && bindings.length === 0 && !options.handler) throw new HandlerNotFoundError(type, host.domainName);
  if (options.handler) bindings = bindings.filter((b) => b.cls === options.handler);
  if (bindings.length === 0) return 'skipped';

  const context = contextOf(envelope.metadata);
  const failures: unknown[] = [];
  for (const binding of bindings) {
    for (const method of kind === 'COMMAND' ? binding.methods.slice(0, 1) : binding.methods) {
      try {
        await retryOnConflict(() => host.freshUnitOfWork(() => invokeHandler(binding.cls, method, message), context));
      } catch (error) {
        if (bindings.length === 1 && binding.methods.length === 1) throw error;
        failures.push(error);
      }
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} handlers of ${type} failed`);
  return 'handled';
}
