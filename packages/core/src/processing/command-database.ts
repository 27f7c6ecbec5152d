/**
 * The database an asynchronous command is queued in and its outcome recorded in: the database of
 * the command's aggregate (its `partOf`, else the aggregate its command handler belongs to), so
 * the outbox row, the idempotency claim and the outcome share the transaction of the handler's
 * effects. A command with no aggregate uses the "default" database.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { AggregateRecord } from '../registry/element-record.js';
import type { ElementRegistry } from '../registry/registry.js';
import { CommandDatabaseError } from '../errors/command-database.error.js';

/** Where commands that belong to no aggregate go. */
export const FALLBACK_COMMAND_DATABASE = 'default';

/** The database an aggregate's rows (or, event-sourced, its events) and outbox rows live in. */
export function aggregateDatabase(record: AggregateRecord, eventStoreDatabase: string): string {
  // An event-sourced aggregate lives where its events do (a provider option must name that database).
  return record.options.isEventSourced ? eventStoreDatabase : record.options.provider;
}

/**
 * The database of the command class `command`, or of the registered command whose message type
 * is `command`; an unregistered type uses the fallback. `databases` are the configured names:
 * a fallback that is not among them is a `CommandDatabaseError` naming the command.
 */
export function commandDatabase(
  registry: ElementRegistry,
  command: ClassRef | string,
  config: { eventStoreDatabase: string; databases: readonly string[] },
): string {
  const cls = typeof command === 'string' ? registry.messageClassFor(command) : command;
  const aggregate = cls ? commandAggregate(registry, cls) : undefined;
  if (aggregate) return aggregateDatabase(aggregate, config.eventStoreDatabase);
  if (!config.databases.includes(FALLBACK_COMMAND_DATABASE)) {
    throw new CommandDatabaseError(cls?.name ?? String(command), FALLBACK_COMMAND_DATABASE);
  }
  return FALLBACK_COMMAND_DATABASE;
}

function commandAggregate(registry: ElementRegistry, cls: ClassRef): AggregateRecord | undefined {
  const record = registry.recordOf(cls);
  if (record?.kind !== 'command') return undefined;
  const own = record.options.partOf ? registry.aggregateOf(record.options.partOf) : undefined;
  if (own) return own;
  const type = registry.messageTypeOf(cls);
  for (const binding of registry.handlersFor(type)) {
    if (binding.record.kind !== 'commandHandler') continue;
    const { partOf, streamCategory } = binding.record.options;
    const target = partOf ?? (typeof streamCategory === 'function' ? streamCategory : undefined);
    const aggregate = target ? registry.aggregateOf(target) : undefined;
    if (aggregate) return aggregate;
  }
  return undefined;
}
