/**
 * Gives a command its metadata when it is processed: type from the registry, stream
 * `<category>:command-<id>` (the command's identifier field when it has one, so commands of one
 * aggregate share a stream), and the correlation of the message being handled, or its own id.
 */
import type { ClassRef } from '../fields/field-definition.js';
import { fieldsOf } from '../fields/field-metadata.js';
import type { BaseCommand } from './base-command.js';
import type { ElementHost, MessageContext } from './element-host.js';
import { stateOf } from './element-state.js';
import { buildMessageMetadata, withMetadata } from './message-metadata.js';
import { RegistrationError } from '../errors/registration.error.js';

export function stampCommand<C extends BaseCommand>(host: ElementHost, command: C, context: MessageContext | undefined): C {
  if (command._metadata) return command;
  const cls = command.constructor as ClassRef;
  const info = host.messageInfo(cls);
  if (info.kind !== 'COMMAND') throw new RegistrationError(`${cls.name} is registered as an event; domain.process() takes commands`);
  const category = info.streamCategory;
  if (!category)
    throw new RegistrationError(`${cls.name} has no stream category: declare it with @domain.command({ partOf: <Aggregate> }) or give it a streamCategory`);
  const metadata = buildMessageMetadata({ info, streamCategory: category, stream: '', context });
  const id = commandTargetId(command) ?? metadata.headers.id;
  metadata.headers.stream = `${category}:command-${id}`;
  metadata.domain.correlationId = context?.correlationId ?? metadata.headers.id;
  metadata.domain.causationId = context?.causationId ?? null;
  return withMetadata(command, metadata);
}

/** The aggregate identity a command targets: its `identifier: true` field, else its first identifier-kind field. */
function commandTargetId(command: BaseCommand): string | undefined {
  const fields = fieldsOf(command.constructor as ClassRef);
  const field = fields.find((f) => f.identifier) ?? fields.find((f) => f.kind === 'identifier');
  const value = field ? stateOf(command).values[field.name] : undefined;
  return value === undefined || value === null || value === '' ? undefined : String(value);
}
