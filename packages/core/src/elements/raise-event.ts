/**
 * Stamps an event raised by an aggregate: message type and stream from the registry, the
 * per-stream sequence `<expected version + 1>.<index>`, and the correlation of the message
 * being handled (from the runtime's unit of work, when one is active).
 */
import type { ClassRef } from '../fields/field-definition.js';
import { RegistrationError } from '../errors/registration.error.js';
import { BaseEvent } from './base-event.js';
import { hostOf } from './element-host.js';
import { stateOf } from './element-state.js';
import { identityValue } from './element-builder.js';
import { buildMessageMetadata, withMetadata } from './message-metadata.js';

export function stampRaisedEvent<E extends BaseEvent>(aggregate: object, event: E, pendingCount: number): E {
  const aggregateClass = aggregate.constructor as ClassRef;
  if (!(event instanceof BaseEvent)) {
    throw new RegistrationError(
      `${aggregateClass.name}.raise() takes an event (a BaseEvent subclass built with .create()), got ${event === null ? 'null' : typeof event}`,
    );
  }
  const eventClass = event.constructor as ClassRef;
  const host = hostOf(aggregateClass);
  if (!host)
    throw new RegistrationError(
      `${aggregateClass.name} is not registered with a domain; decorate it with @domain.aggregate() before raising ${eventClass.name}`,
    );
  if (!hostOf(eventClass))
    throw new RegistrationError(`${eventClass.name} is not registered with a domain; decorate it with @domain.event({ partOf: ${aggregateClass.name} })`);
  const info = host.messageInfo(eventClass);
  if (info.kind !== 'EVENT') throw new RegistrationError(`${eventClass.name} is registered as a command; aggregates raise events only`);
  if (info.partOf && info.partOf !== aggregateClass) {
    throw new RegistrationError(
      `${eventClass.name} is part of ${info.partOf.name}, so ${aggregateClass.name} cannot raise it; raise it from ${info.partOf.name} or change its partOf`,
    );
  }
  const id = identityValue(aggregate);
  const category = host.streamCategoryOf(aggregateClass);
  const expectedVersion = stateOf(aggregate).version;
  const metadata = buildMessageMetadata({
    info,
    streamCategory: category,
    stream: `${category}-${id}`,
    sequenceId: `${expectedVersion + 1}.${pendingCount + 1}`,
    expectedVersion,
    context: host.messageContext(),
  });
  return withMetadata(event, metadata);
}
